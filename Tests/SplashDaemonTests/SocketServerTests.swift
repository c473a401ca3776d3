import Foundation
import Logging
import NIOPosix
import SplashCore
import SplashJSON
@testable import SplashDaemon
import SplashProtocol
import Testing
import TestSupport

/// The socket file: it appears at its path only with its configured mode, and nothing else is
/// left in its directory.
@Suite struct SocketServerTests {
    struct NoCommands: CommandHandler {
        func handle(_ command: Request.Command) async -> Result<Void, ProtocolError> { .success(()) }
        func report(_ report: Report) async -> Result<(data: JSONValue, text: String?), ProtocolError> {
            .failure(ProtocolError(code: .unavailable, message: "none"))
        }
    }

    @Test(arguments: [mode_t(0o600), 0o660, 0o666])
    func theSocketAppearsWithItsModeAndNothingElseIsLeft(mode: mode_t) async throws {
        let directory = try TemporaryDirectory(prefix: "splashd-sock")
        defer { directory.remove() }
        let path = directory.file("splashd.sock")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // A umask that would strip the group's write bit if the mode came from bind(2) alone.
        let previous = umask(0o077)
        defer { umask(previous) }

        // Every name that appears in the directory, and how: created there, or moved in.
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        #expect(watch >= 0)
        defer { close(watch) }
        #expect(inotify_add_watch(watch, directory.path, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0)

        let server = try await SocketServer.start(
            endpoint: .path(path, mode: mode, group: nil), group: group, commands: NoCommands(),
            broadcaster: StateBroadcaster(), access: AccessPolicy(controlGID: nil), maxClients: 8, logger: logger
        )
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == mode)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["splashd.sock"])
        // The socket was bound under another name and moved to its path once it had its mode.
        let events = Self.events(watch)
        #expect(events.contains { $0.name == "splashd.sock" && $0.mask & UInt32(IN_MOVED_TO) != 0 })
        #expect(!events.contains { $0.name == "splashd.sock" && $0.mask & UInt32(IN_CREATE) != 0 }, "\(events)")

        await server.close()
        #expect(!directory.exists("splashd.sock"))
        try await group.shutdownGracefully()
    }

    /// The inotify events queued on `watch`, as (name, mask).
    static func events(_ watch: Int32) -> [(name: String, mask: UInt32)] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        var events: [(name: String, mask: UInt32)] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
            let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
            let nameBytes = buffer[(offset + header)..<(offset + header + Int(event.len))].prefix { $0 != 0 }
            events.append((String(decoding: nameBytes, as: UTF8.self), event.mask))
            offset += header + Int(event.len)
        }
        return events
    }

    @Test func theStagingNameIsBesideThePathAndOnlyUsedWhenItFits() {
        #expect(SocketServer.stagingPath(for: "/run/splashd/splashd.sock") == "/run/splashd/.splashd-\(getpid()).sock")
        #expect(SocketServer.stagingPath(for: "splashd.sock") == "./.splashd-\(getpid()).sock")
        let long = "/tmp/" + String(repeating: "d", count: 90) + "/s.sock"
        #expect(SocketServer.stagingPath(for: long) == nil)
    }
}
