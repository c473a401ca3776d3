import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small real HTTP/1.1 server on 127.0.0.1 for tests: records requests, answers scripted replies.
///
/// Binds port 0 (the kernel picks a free port). Every reply carries `Connection: close` and the
/// connection is closed after it, so no client keeps a pooled connection across `stop()`: once
/// stopped, connections are refused ("server down"); `start()` binds the same port again.
///
/// While stopped, the port stays this server's: a plain socket bound to it and not listening (so
/// connections are refused) keeps any other server of a test running beside this one from taking
/// it, and a "server down" from reaching somebody else's server. It is bound before the listener
/// closes and closed after the next one listens (both with `SO_REUSEPORT`): the port is never free.
///
/// Replies are taken from a queue in order; when it is empty, `fallback` answers.
public final class TestHTTPServer: Sendable {
    /// A request as received.
    public struct Request: Sendable {
        public var method: String
        /// The request target: path and query.
        public var path: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The first value of header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// A scripted reply.
    public struct Response: Sendable {
        public enum Kind: Sendable {
            /// A normal reply.
            case reply
            /// Never answers (until the server stops).
            case stall
            /// Closes the connection without answering.
            case close
        }

        public var kind: Kind = .reply
        public var status: Int = 200
        public var headers: [(String, String)] = []
        public var body: [UInt8] = []
        /// Sends the body in `chunked` transfer encoding, in pieces of this size, without a length.
        public var chunkSize: Int?

        public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
        }

        public static func status(_ status: Int, headers: [(String, String)] = []) -> Response {
            Response(status: status, headers: headers)
        }

        public init(kind: Kind = .reply, status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], chunkSize: Int? = nil) {
            self.kind = kind
            self.status = status
            self.headers = headers
            self.body = body
            self.chunkSize = chunkSize
        }

        public static let stall = Response(kind: .stall)
        public static let close = Response(kind: .close)
    }

    private struct State {
        var requests: [Request] = []
        var queue: [Response] = []
        var fallback = Response.status(500)
        var listener: (any Channel)?
        var connections: [ObjectIdentifier: any Channel] = [:]
        /// The socket that holds the port while stopped.
        var placeholder: Int32?
    }

    private let state = Mutex(State())
    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// The bound port; fixed after the first start.
    public let port: Int

    private init(port: Int) { self.port = port }

    deinit {
        if let placeholder = state.withLock({ $0.placeholder }) { close(placeholder) }
    }

    /// Starts a server on a free port of 127.0.0.1.
    public static func start() async throws -> TestHTTPServer {
        let holder = ServerHolder(server: nil)
        let channel = try await bind(port: 0, holder: holder)
        let server = TestHTTPServer(port: channel.localAddress!.port!)
        holder.server = server
        server.state.withLock { $0.listener = channel }
        return server
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Queues replies, answered in order.
    public func enqueue(_ responses: Response...) {
        state.withLock { $0.queue.append(contentsOf: responses) }
    }

    /// The reply given when the queue is empty (default: 500).
    public func setFallback(_ response: Response) {
        state.withLock { $0.fallback = response }
    }

    /// Every request received so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Whether the server is listening.
    public var isRunning: Bool { state.withLock { $0.listener != nil } }

    /// Stops listening and closes every open connection; connections are refused afterwards.
    public func stop() async throws {
        guard isRunning else { return }
        let placeholder = try Self.holdPort(port)
        let listener = state.withLock { state in
            defer { state.listener = nil; state.placeholder = placeholder }
            return state.listener
        }
        try await listener?.close()
        let connections = state.withLock { state in
            defer { state.connections = [:] }
            return Array(state.connections.values)
        }
        for connection in connections {
            try? await connection.close()
        }
    }

    /// Listens again on the same port after `stop()`.
    public func start() async throws {
        guard !isRunning else { return }
        let channel = try await Self.bind(port: port, holder: ServerHolder(server: self))
        let placeholder = state.withLock { state in
            defer { state.listener = channel; state.placeholder = nil }
            return state.placeholder
        }
        if let placeholder { close(placeholder) }
    }

    /// A TCP socket bound to 127.0.0.1:`port` that never listens: connections to the port are
    /// refused, a bind(0) never gets it, and only a socket of this user with `SO_REUSEPORT` (this
    /// server's next listener) may share it.
    private static func holdPort(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        // SO_REUSEPORT alone: it may share the port with this server's own listener and its
        // connections in TIME_WAIT (same user, same option), and with nothing else. (With
        // SO_REUSEADDR too, Linux would let any SO_REUSEADDR socket bind beside it.)
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw IOError(errnoCode: code, reason: "binding 127.0.0.1:\(port) to hold it while stopped")
        }
        return fd
    }

    private static func bind(port: Int, holder: ServerHolder) async throws -> any Channel {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptRecorder(holder: holder))
                }
            }
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(holder: holder))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        return channel
    }

    fileprivate func connectionOpened(_ channel: any Channel) {
        state.withLock { $0.connections[ObjectIdentifier(channel)] = channel }
    }

    fileprivate func connectionClosed(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Records `request` and takes the reply to it.
    fileprivate func answer(_ request: Request) -> Response {
        state.withLock { state in
            state.requests.append(request)
            return state.queue.isEmpty ? state.fallback : state.queue.removeFirst()
        }
    }
}

/// Lets the first bind's child handlers find the server created after it.
private final class ServerHolder: Sendable {
    private let slot: Mutex<TestHTTPServer?>
    init(server: TestHTTPServer?) { slot = Mutex(server) }
    var server: TestHTTPServer? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}

/// On the listening channel: notes each accepted connection, so `stop()` can close it.
private final class AcceptRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel
    let holder: ServerHolder
    init(holder: ServerHolder) { self.holder = holder }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        if let server = holder.server {
            server.connectionOpened(child)
            child.closeFuture.whenComplete { _ in server.connectionClosed(child) }
        }
        context.fireChannelRead(data)
    }
}

/// Collects one request at a time and writes its scripted reply.
private final class RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let holder: ServerHolder
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(holder: ServerHolder) { self.holder = holder }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head, let server = holder.server else { return }
            let request = TestHTTPServer.Request(
                method: head.method.rawValue,
                path: head.uri,
                headers: head.headers.map { (name: $0.name, value: $0.value) },
                body: body
            )
            respond(server.answer(request), context: context)
        }
    }

    private func respond(_ response: TestHTTPServer.Response, context: ChannelHandlerContext) {
        switch response.kind {
        case .stall:
            return
        case .close:
            context.close(promise: nil)
            return
        case .reply:
            break
        }
        var headers = HTTPHeaders(response.headers)
        headers.replaceOrAdd(name: "Connection", value: "close")
        if response.chunkSize == nil {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        }
        let head = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let pieces = response.chunkSize.map { size in
            stride(from: 0, to: response.body.count, by: max(1, size)).map {
                response.body[$0..<min($0 + max(1, size), response.body.count)]
            }
        } ?? [response.body[...]]
        for piece in pieces where !piece.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: piece)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
