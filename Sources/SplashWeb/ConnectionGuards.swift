import NIOCore

/// The handlers that keep a connection to `splashd-web` within its bounds before and around the
/// WebSocket upgrade (docs/renderer.md, "Bounds"); the cap itself is `ConnectionTable`.

/// What a connection over the cap gets: a 503 response, then the connection is closed
/// (`AnswerAndClose`). Nothing the client sends is read.
enum BusyHTTP {
    /// The whole response.
    static func response(capacity: Int) -> String {
        let body = "splashd-web is serving its maximum of \(capacity) connections; try again later\n"
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nRetry-After: 1\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
            + body
    }
}

/// Closes a connection that sent nothing for `IdleStateHandler`'s read timeout: an HTTP
/// connection between requests, or one that never finished its request (removed on upgrade).
final class IdleCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case IdleStateHandler.IdleStateEvent.read? = event as? IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Lets only bytes reach the WebSocket frame decoder after an upgrade.
///
/// NIO's upgrade handler keeps what arrived after the upgrade request and passes it on once the
/// upgrade is done. When that was a whole request pipelined behind the upgrade request, it had
/// already been decoded, and the frame decoder, which takes bytes, trapped on an HTTP request head:
/// one connection took the bridge down (found by the `web-http` fuzz target). A client must wait
/// for the `101` before it sends frames (RFC 6455 §4.1), so a request there closes the connection.
final class UpgradeLeftoverGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard Self.holdsBytes(data) else {
            refused = true
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// Whether `data` wraps bytes (`NIOAny`'s own test is not public: its storage's case says).
    static func holdsBytes(_ data: NIOAny) -> Bool {
        guard let storage = Mirror(reflecting: data).children.first?.value else { return false }
        return Mirror(reflecting: storage).children.first?.label == "ioData"
    }
}
