import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers the plain HTTP requests: the page, its files and the theme's, `GET` and `HEAD` only.
///
/// A request whose `Host` is not the bridge's own gets 403 (DNS rebinding); `/ws` reaches this
/// handler only when the WebSocket upgrade was refused, and gets 403 too. Every response says
/// `no-store`, `nosniff`, `no-referrer` (the page's URL holds the token; the app it loads must not
/// see it) and a content security policy that lets the page load only its own files and connect
/// only to its own origin.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let site: WebSite
    let access: BridgeAccess
    private var request: HTTPRequestHead?

    init(site: WebSite, access: BridgeAccess) {
        self.site = site
        self.access = access
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard head.method == .GET || head.method == .HEAD else {
            return send(.methodNotAllowed, "only GET and HEAD\n", head: head, context: context)
        }
        guard access.acceptsHost(head.headers.first(name: "host")) else {
            return send(.forbidden, "unknown host\n", head: head, context: context)
        }
        let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        if path == "/ws" {
            // Here only when the upgrade was refused (or was no upgrade): say why.
            let reason = if case .refused(let why) = WebServer.grant(for: head, access: access) { why } else { "not a WebSocket upgrade" }
            return send(.forbidden, reason + "\n", head: head, context: context)
        }
        guard let resource = site.resources[path == "/index.html" ? "/" : path] else {
            return send(.notFound, "not found\n", head: head, context: context)
        }
        send(.ok, resource.bytes, contentType: resource.contentType, head: head, context: context)
    }

    private func send(_ status: HTTPResponseStatus, _ text: String, head: HTTPRequestHead, context: ChannelHandlerContext) {
        send(status, Array(text.utf8), contentType: "text/plain; charset=utf-8", head: head, context: context)
    }

    private func send(_ status: HTTPResponseStatus, _ body: [UInt8], contentType: String, head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(
            name: "Content-Security-Policy",
            value: "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                + "font-src 'self'; connect-src 'self'; frame-src http: https:; base-uri 'none'; form-action 'none'"
        )
        let keepAlive = head.isKeepAlive && status == .ok
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        // Closed once the response is written; the callback runs on the channel's event loop.
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refused WebSocket upgrade is reported as an error before its request is passed on:
        // the request still gets its 403 (`respond`).
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }
}
