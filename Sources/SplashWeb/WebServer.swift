public import Logging
public import NIOCore
import NIOConcurrencyHelpers
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import SplashLines

/// `splashd-web`'s HTTP and WebSocket server on a loopback address, with the bridge behind it.
public final class WebServer: Sendable {
    /// Why the server did not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The page's URL with the per-start token: what the kiosk browser opens.
    public let url: String
    public let bridge: Bridge
    private let channel: any Channel

    private init(url: String, bridge: Bridge, channel: any Channel) {
        self.url = url
        self.bridge = bridge
        self.channel = channel
    }

    /// The largest WebSocket frame a page may send: a renderer command is a short line.
    static let maxFrameSize = 16 * 1024
    /// The most read from a connection at once: one read's frames are handled before reading
    /// stops for a client that does not read its answers (PageSocketHandler), so this bounds what
    /// such a client can make the bridge queue.
    static let maxReadSize = 16 * 1024
    /// How long a connection may send nothing before it is closed, until it upgrades: an HTTP
    /// request never finished, or a keep-alive connection between requests.
    static let idleTimeout = TimeAmount.seconds(10)
    /// How long accepting stops after `accept` failed for want of descriptors or memory.
    static let acceptPause = TimeAmount.milliseconds(250)

    /// Binds `host:port` (port 0 for any free one), which must be a loopback address, and starts
    /// the bridge to splashd's socket at `socketPath`.
    public static func start(
        host: String, port: Int, site: WebSite, socketPath: String, group: any EventLoopGroup, logger: Logger
    ) async throws -> WebServer {
        // Refused before anything is bound: a non-loopback address is never open, even briefly.
        if host != "localhost" {
            guard let literal = try? SocketAddress(ipAddress: host, port: 0), Self.isLoopback(literal) else {
                throw StartError(description: "\(host) is not a loopback address: splashd-web serves this machine only")
            }
        }
        let serving = NIOLockedValueBox<(Bridge, WebSite)?>(nil)
        let table = ConnectionTable(capacity: ConnectionTable.capacity(descriptorLimit: ConnectionTable.descriptorLimit()))
        logger.debug("serving at most \(table.capacity) connections")
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelInitializer { channel in
                    // Out of descriptors (whatever took them): stop accepting for a moment
                    // instead of retrying `accept` at once, forever (AcceptPause).
                    AcceptPause.install(on: channel, pause: acceptPause) { error in
                        logger.warning("cannot accept a connection (\(error)); pausing new connections for a moment")
                    }
                }
                .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
                .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
                .childChannelOption(
                    ChannelOptions.recvAllocator,
                    value: AdaptiveRecvByteBufferAllocator(minimum: 512, initial: 4096, maximum: maxReadSize)
                )
                .childChannelInitializer { channel in
                    guard let (bridge, site) = serving.withLockedValue({ $0 }) else {
                        return channel.close()
                    }
                    guard table.admit(channel) else {
                        return channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(AnswerAndClose(Array(BusyHTTP.response(capacity: table.capacity).utf8)))
                        }
                    }
                    return Self.configure(channel, bridge: bridge, site: site, table: table)
                }
                .bind(host: host, port: port).get()
        } catch {
            throw StartError(description: "cannot listen on \(host):\(port): \(error)")
        }
        guard let address = channel.localAddress, let ip = address.ipAddress, let boundPort = address.port,
            Self.isLoopback(address)
        else {
            try? await channel.close()
            throw StartError(description: "\(host) is not a loopback address: splashd-web serves this machine only")
        }
        let hostPart = ip.contains(":") ? "[\(ip)]" : ip
        let token = Self.makeToken()
        let access = BridgeAccess(host: ip, port: boundPort, token: token, appStep: site.theme.appStep)
        let bridge = Bridge(eventLoop: channel.eventLoop, socketPath: socketPath, access: access, logger: logger)
        serving.withLockedValue { $0 = (bridge, site) }
        bridge.start()
        return WebServer(url: "http://\(hostPart):\(boundPort)/?token=\(token)", bridge: bridge, channel: channel)
    }

    /// Stops serving and stops the bridge.
    public func close() async {
        try? await bridge.stop().get()
        try? await channel.close()
    }

    /// Builds a connection's pipeline: idle timeout, HTTP, the WebSocket upgrade to `PageSocketHandler`.
    package static func configure(_ channel: any Channel, bridge: Bridge, site: WebSite, table: ConnectionTable) -> EventLoopFuture<Void> {
        let access = bridge.access
        let idle = IdleStateHandler(readTimeout: idleTimeout)
        let idleCloser = IdleCloser()
        // The upgrade completes on the channel's event loop, where the handlers live.
        let boundIdle = NIOLoopBound((idle, idleCloser), eventLoop: channel.eventLoop)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maxFrameSize,
            // PageSocketHandler closes on the decoder's errors itself: one close frame.
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                let grant = Self.grant(for: head, access: access)
                if case .refused = grant { return channel.eventLoop.makeSucceededFuture(nil) }
                return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let grant = Self.grant(for: head, access: access)
                    // A page stays as long as it likes; one with the token is never pushed out.
                    channel.pipeline.syncOperations.removeHandler(boundIdle.value.0, promise: nil)
                    channel.pipeline.syncOperations.removeHandler(boundIdle.value.1, promise: nil)
                    if grant == .control { table.protect(channel) }
                    // Before the frame decoder: what NIO passes on from before the upgrade must be bytes.
                    let decoder = try channel.pipeline.syncOperations.context(
                        handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self
                    ).handler
                    try channel.pipeline.syncOperations.addHandler(UpgradeLeftoverGuard(), position: .before(decoder))
                    let handler = PageSocketHandler(bridge: bridge, grant: grant)
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        )
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers([idle, idleCloser])
            let http = HTTPHandler(site: site, access: access, bridge: bridge)
            let boundHTTP = NIOLoopBound(http, eventLoop: channel.eventLoop)
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (upgraders: [upgrader], completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(boundHTTP.value, promise: nil)
                })
            )
            try channel.pipeline.syncOperations.addHandler(http)
        }
    }

    static func grant(for head: HTTPRequestHead, access: BridgeAccess) -> BridgeAccess.Grant {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.first == "/ws" else { return .refused("not the WebSocket path") }
        return access.grant(
            origin: head.headers.first(name: "origin"), host: head.headers.first(name: "host"),
            query: parts.count > 1 ? String(parts[1]) : nil
        )
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4): return (UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24) == 127
        case .v6: return address.ipAddress == "::1"
        case .unixDomainSocket: return false
        }
    }

    /// 128 random bits as 32 hex digits.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var token = ""
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            token += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return token
    }
}
