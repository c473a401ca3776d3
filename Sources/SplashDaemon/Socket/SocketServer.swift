#if canImport(Glibc)
public import Glibc
#endif
public import Logging
public import NIOCore
import CLinuxShims
import NIOPosix
import SplashLines
import SplashCore
import SplashProtocol

/// The Unix socket the daemon serves the protocol on.
public final class SocketServer: Sendable {
    /// Where the listening socket comes from.
    public enum Endpoint: Sendable, Equatable, CustomStringConvertible {
        /// Bind a socket file at `path` with permission `mode`, owned by group `group` when set.
        case path(String, mode: mode_t, group: gid_t?)
        /// A listening socket handed over by systemd (socket activation).
        case inherited(CInt)

        public var description: String {
            switch self {
            case .path(let path, let mode, _): "\(path) (mode \(String(mode, radix: 8)))"
            case .inherited(let fd): "socket-activated fd \(fd)"
            }
        }
    }

    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    private let channel: any Channel
    /// The socket file this server created (and so may remove), with its inode.
    private let owned: (path: String, inode: ino_t)?

    private init(channel: any Channel, owned: (path: String, inode: ino_t)?) {
        self.channel = channel
        self.owned = owned
    }

    /// How long the server stops accepting after `accept` failed (out of descriptors, memory).
    static let acceptBackoff = TimeAmount.milliseconds(250)

    /// Starts serving on `endpoint`, at most `maxClients` clients at once (one more is answered
    /// `busy` and closed). Returns once the socket accepts clients.
    public static func start(
        endpoint: Endpoint,
        group: any EventLoopGroup,
        commands: any CommandHandler,
        broadcaster: StateBroadcaster,
        access: AccessPolicy,
        maxClients: Int,
        logger: Logger
    ) async throws -> SocketServer {
        let limit = ConnectionLimit(capacity: maxClients)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelInitializer { channel in
                // `accept` failing for want of descriptors or memory leaves the connection in the
                // backlog and the socket readable: without a pause the loop would retry at once,
                // forever, whatever consumed the descriptors (AcceptPause says why NIO's own
                // back-off is not enough).
                AcceptPause.install(on: channel, pause: acceptBackoff) { error in
                    logger.warning("cannot accept a client (\(error)); pausing new connections for a moment")
                }
            }
            .childChannelOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 16 * 1024, high: 64 * 1024))
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard limit.admit() else {
                        try channel.pipeline.syncOperations.addHandler(AnswerAndClose(BusyConnection.line(capacity: limit.capacity)))
                        return
                    }
                    channel.closeFuture.whenComplete { _ in limit.release() }
                    // What the kernel recorded when the peer connected, taken now: its rights are
                    // decided from this alone, never from /proc later (PeerCredentials).
                    let peer = PeerCredentials.of(channel)
                    let handlers: [any ChannelHandler] = [
                        ByteToMessageHandler(LineFrameDecoder(maxLength: SocketDefaults.maxLineBytes)),
                        ConnectionHandler(commands: commands, broadcaster: broadcaster, access: access, peer: peer, logger: logger),
                    ]
                    try channel.pipeline.syncOperations.addHandlers(handlers)
                }
            }
        switch endpoint {
        case .inherited(let descriptor):
            let channel = try await bootstrap.withBoundSocket(descriptor).get()
            return SocketServer(channel: channel, owned: nil)
        case .path(let path, let mode, let groupID):
            try prepare(path: path)
            // Bound under a staging name, given its mode and group, then renamed into place: a
            // client never finds the socket at `path` with other permissions than configured.
            let staging = stagingPath(for: path)
            let boundPath = staging ?? path
            if let staging {
                var info = stat()
                if lstat(staging, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK { unlink(staging) }
            }
            let channel: any Channel
            do {
                channel = try await bootstrap.bind(unixDomainSocketPath: boundPath, cleanupExistingSocketFile: false).get()
            } catch {
                throw StartError(description: "cannot listen on \(path): \(error)")
            }
            if chmod(boundPath, mode) != 0 {
                logger.warning("cannot set mode \(String(mode, radix: 8)) on \(path): \(String(cString: strerror(errno)))")
            }
            if let groupID, chown(boundPath, uid_t.max, groupID) != 0 {
                logger.warning("cannot give \(path) to group \(groupID): \(String(cString: strerror(errno)))")
            }
            if let staging, splashd_rename_noreplace(staging, path) != 0 {
                let reason = errno == EEXIST ? "another process is already serving \(path)" : "cannot move the socket to \(path): \(String(cString: strerror(errno)))"
                try? await channel.close()
                unlink(staging)
                throw StartError(description: reason)
            }
            var info = stat()
            let inode: ino_t = stat(path, &info) == 0 ? info.st_ino : 0
            return SocketServer(channel: channel, owned: (path, inode))
        }
    }

    /// Stops accepting clients and removes the socket file if this server created it.
    public func close() async {
        try? await channel.close()
        if let owned {
            var info = stat()
            if stat(owned.path, &info) == 0 && info.st_ino == owned.inode { unlink(owned.path) }
        }
    }

    /// A name in `path`'s directory to bind under before the socket is renamed to `path`; nil when
    /// it would not fit in a socket address, and then the socket is bound at `path`.
    static func stagingPath(for path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let staging = "\(directory)/.splashd-\(getpid()).sock"
        return staging.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) ? staging : nil
    }

    /// Makes room for a socket at `path`: creates its directory, and removes a stale socket file
    /// left by a crash — but never one another live daemon is serving, and never a non-socket.
    static func prepare(path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty { try makeDirectories(directory) }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw StartError(description: "\(path) exists and is not a socket; not touching it")
        }
        if isServed(path) {
            throw StartError(description: "another process is already serving \(path)")
        }
        unlink(path)
    }

    /// Whether something accepts connections on the socket file at `path`.
    static func isServed(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// `mkdir -p`, new directories with `mode`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty { try makeDirectories(parent, mode: 0o755) }
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw StartError(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }
}
