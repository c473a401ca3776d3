import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// `splashd-kms` ends on SIGTERM in every stage, with 0: also while it waits for a device node
/// or splashd's socket that does not exist yet (before, it sat in a blocking inotify read there,
/// and only a SIGKILL ended it). Its one loop polls its signal descriptor beside every wait.
@MainActor @Suite struct SplashdKMSSignalTests {
    /// What the renderer wrote to stderr, and a signal each time more came.
    final class Output: Sendable {
        let text = Mutex("")
        let more = DispatchSemaphore(value: 0)

        /// Waits until the text holds `needle`, at most `limit`; whether it does.
        func wait(for needle: String, limit: Duration) -> Bool {
            let end = ContinuousClock.now + limit
            while !text.withLock({ $0.contains(needle) }) {
                let left = end - ContinuousClock.now
                guard left > .zero else { return false }
                _ = more.wait(timeout: .now() + .milliseconds(Int(left / .milliseconds(1)) + 1))
            }
            return true
        }
    }

    /// Starts the renderer with a device that is not there; its stderr, and a signal at its end.
    static func start(_ dir: TemporaryDirectory, socket: String) throws -> (Process, Output, DispatchSemaphore) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(Binaries.directory)/splashd-kms")
        process.arguments = ["run", "--theme", Binaries.packageRoot + "/renderer/themes/reference", "--device", dir.file("card9"),
                             "--socket", socket, "--display-lock", dir.file("display.lock")]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.removeValue(forKey: "JOURNAL_STREAM")
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        let output = Output()
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            output.more.signal()
        }
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        return (process, output, ended)
    }

    @Test func sigtermEndsItWhileItWaitsForADeviceAndASocketThatAreNotThere() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let socket = dir.file("run/splashd.sock")
        let (process, output, ended) = try Self.start(dir, socket: socket)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Both waits at once: the device's node, and splashd's socket (connected at the loop's
        // first turn, whether or not a device is open).
        #expect(output.wait(for: "waiting for \(dir.file("card9")) to appear", limit: .seconds(30)), "\(output.text.withLock { $0 })")
        #expect(output.wait(for: "waiting for \(socket) to appear", limit: .seconds(30)), "\(output.text.withLock { $0 })")
        kill(process.processIdentifier, SIGTERM)
        #expect(ended.wait(timeout: .now() + .seconds(10)) == .success, "ended within 10 s of SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "exit 0, not killed by the signal")
        #expect(output.wait(for: "stopping", limit: .seconds(5)), "\(output.text.withLock { $0 })")
    }

    /// A socket that accepts and never answers (splashd starting slowly behind systemd's socket):
    /// the renderer tries again every 5 s, and hears SIGTERM between two tries.
    @Test func sigtermEndsItWhileSplashdDoesNotAnswer() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let socket = dir.file("splashd.sock")
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socket.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 4) == 0)
        let (process, output, ended) = try Self.start(dir, socket: socket)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(output.wait(for: "splashd has not answered on \(socket) yet", limit: .seconds(30)), "\(output.text.withLock { $0 })")
        kill(process.processIdentifier, SIGTERM)
        #expect(ended.wait(timeout: .now() + .seconds(10)) == .success, "ended within one 5 s try of SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "exit 0, not killed by the signal")
    }
}
