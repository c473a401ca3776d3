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

    @Test func sigtermEndsItWhileItWaitsForADeviceAndASocketThatAreNotThere() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let theme = Binaries.packageRoot + "/renderer/themes/reference"
        let device = dir.file("card9"), socket = dir.file("run/splashd.sock")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(Binaries.directory)/splashd-kms")
        process.arguments = ["run", "--theme", theme, "--device", device, "--socket", socket, "--display-lock", dir.file("display.lock")]
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
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Both waits at once: the device's node, and splashd's socket (connected at the loop's
        // first turn, whether or not a device is open).
        #expect(output.wait(for: "waiting for \(device) to appear", limit: .seconds(30)), "\(output.text.withLock { $0 })")
        #expect(output.wait(for: "waiting for \(socket) to appear", limit: .seconds(30)), "\(output.text.withLock { $0 })")
        kill(process.processIdentifier, SIGTERM)
        #expect(ended.wait(timeout: .now() + .seconds(10)) == .success, "ended within 10 s of SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "exit 0, not killed by the signal")
        #expect(output.wait(for: "stopping", limit: .seconds(5)), "\(output.text.withLock { $0 })")
    }
}
