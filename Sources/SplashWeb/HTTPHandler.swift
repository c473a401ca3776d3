import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers the plain HTTP requests: the page, its files and the theme's, `GET` and `HEAD`; and
/// the screenshot's two requests (Bridge+Screenshot), the operator's `GET /screenshot.png` and
/// the page's `POST /screenshot/N` (the only request with a body, at most
/// `Bridge.maxScreenshotBytes`), both with the token.
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
    let bridge: Bridge?
    private var request: HTTPRequestHead?
    /// A screenshot's body as it comes (nil for every other request), and whether it went over.
    private var body: ByteBuffer?
    private var bodyTooLarge = false

    init(site: WebSite, access: BridgeAccess, bridge: Bridge? = nil) {
        self.site = site
        self.access = access
        self.bridge = bridge
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
            bodyTooLarge = false
            // Only the body of the screenshot awaited, sent with the token, is kept: one at a time.
            let awaited = head.method == .POST && hasToken(head) && Self.screenshotID(head.uri).map { bridge?.awaitsScreenshot($0) == true } == true
            body = awaited ? context.channel.allocator.buffer(capacity: 0) : nil
        case .body(var part):
            guard body != nil, !bodyTooLarge else { break }
            if body!.readableBytes + part.readableBytes > Bridge.maxScreenshotBytes {
                bodyTooLarge = true
                body = context.channel.allocator.buffer(capacity: 0)
            } else {
                body!.writeBuffer(&part)
            }
        case .end:
            guard let head = request else { return }
            request = nil
            let received = body
            body = nil
            respond(to: head, body: received, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        if head.method == .POST, path.hasPrefix("/screenshot/") {
            return screenshotArrived(head, body: body, context: context)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return send(.methodNotAllowed, "only GET and HEAD\n", head: head, context: context)
        }
        guard access.acceptsHost(head.headers.first(name: "host")) else {
            return send(.forbidden, "unknown host\n", head: head, context: context)
        }
        if path == "/screenshot.png" {
            return takeScreenshot(head, context: context)
        }
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

    /// N of `/screenshot/N?…`.
    static func screenshotID(_ uri: String) -> Int64? {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard path.hasPrefix("/screenshot/"), let id = Int64(path.dropFirst("/screenshot/".count)), id > 0 else { return nil }
        return id
    }

    /// Whether the request's URL carries the bridge's token.
    private func hasToken(_ head: HTTPRequestHead) -> Bool {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count > 1, let given = BridgeAccess.queryValue("token", in: String(parts[1])) else { return false }
        return BridgeAccess.constantTimeEqual(given, access.token)
    }

    /// The operator's `GET /screenshot.png?token=…`: answered once the page sent its picture.
    private func takeScreenshot(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard head.method == .GET, let bridge else { return send(.methodNotAllowed, "only GET\n", head: head, context: context) }
        guard hasToken(head) else { return send(.forbidden, "a screenshot needs the bridge's token\n", head: head, context: context) }
        bridge.requestScreenshot().assumeIsolated().whenSuccess { outcome in
            switch outcome {
            case .png(let bytes): self.send(.ok, bytes, contentType: "image/png", head: head, context: context)
            case .refused(let status, let reason):
                self.send(HTTPResponseStatus(statusCode: status), reason + "\n", head: head, context: context)
            }
        }
    }

    /// The page's `POST /screenshot/N?token=…`: its PNG (`image/png`), or why it could not draw
    /// itself (`text/plain`, at most 300 bytes of it passed on).
    private func screenshotArrived(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        guard let bridge, hasToken(head), access.acceptsHost(head.headers.first(name: "host")),
            head.headers.first(name: "origin").map({ access.origins.contains($0.lowercased()) }) ?? true
        else { return send(.forbidden, "a screenshot comes from the bridge's own page, with its token\n", head: head, context: context) }
        guard let id = Self.screenshotID(head.uri), let body else {
            return send(.notFound, "no such screenshot is awaited\n", head: head, context: context)
        }
        let outcome: Bridge.ScreenshotOutcome
        let bytes = Array(body.readableBytesView)
        let type = head.headers.first(name: "content-type")?.lowercased() ?? ""
        if bodyTooLarge {
            outcome = .refused(status: 502, reason: "the page's picture is over \(Bridge.maxScreenshotBytes >> 20) MiB")
        } else if type.hasPrefix("image/png"), bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            outcome = .png(bytes)
        } else if type.hasPrefix("text/plain") {
            let reason = String(decoding: bytes.prefix(300), as: UTF8.self)
            outcome = .refused(status: 502, reason: "the page could not draw itself: \(reason)")
        } else {
            outcome = .refused(status: 502, reason: "the page sent something that is not a PNG (\(bytes.count) bytes of \(type.isEmpty ? "no type" : type))")
        }
        let taken = bridge.screenshotArrived(id: id, outcome)
        if bodyTooLarge { return send(.payloadTooLarge, "over \(Bridge.maxScreenshotBytes >> 20) MiB\n", head: head, context: context) }
        send(taken ? .ok : .notFound, taken ? "taken\n" : "no such screenshot is awaited\n", head: head, context: context)
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
