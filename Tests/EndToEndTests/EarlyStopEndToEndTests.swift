import Foundation
import TestSupport
import Testing

/// A SIGTERM that arrives while the daemon is still starting — its socket already bound, its
/// service group not yet trapping signals — stops it gracefully: exit 0 and its socket file
/// removed, as at any other time. Before, about four in ten such SIGTERMs killed it outright
/// (exit by signal 15, the socket file left behind), which systemd and operators saw as a crash.
///
/// The time limit counts the time a test waits for the main actor, where the end-to-end tests run
/// one at a time (8 minutes of them under ThreadSanitizer on a busy machine): a guard against a
/// hang, not one an honest run reaches.
@MainActor @Suite(.timeLimit(.minutes(30)))
struct EarlyStopEndToEndTests {
    @Test func aSigtermRightAfterTheSocketAppearsIsAGracefulStop() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let socket = dir.file("s.sock")
        for round in 1...20 {
            let daemon = Process()
            daemon.executableURL = URL(fileURLWithPath: Binaries.splashd)
            daemon.arguments = ["--socket", socket, "--state-dir", dir.file("state"), "--log-format", "text"]
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            for name in ["NOTIFY_SOCKET", "LISTEN_FDS", "JOURNAL_STREAM"] { environment.removeValue(forKey: name) }
            daemon.environment = environment
            daemon.standardError = FileHandle.nullDevice
            daemon.standardOutput = FileHandle.nullDevice
            try daemon.run()
            // Polled every millisecond (bounded), so the signal comes as soon as the socket exists.
            let deadline = ContinuousClock.now.advanced(by: .seconds(120))
            while !FileManager.default.fileExists(atPath: socket) && ContinuousClock.now < deadline && daemon.isRunning {
                usleep(1_000)
            }
            #expect(FileManager.default.fileExists(atPath: socket), "round \(round): no socket")
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
            #expect(daemon.terminationReason == .exit, "round \(round): killed by signal \(daemon.terminationStatus)")
            #expect(daemon.terminationStatus == 0, "round \(round): exit \(daemon.terminationStatus)")
            #expect(!FileManager.default.fileExists(atPath: socket), "round \(round): the socket file was left behind")
            try? FileManager.default.removeItem(atPath: socket)
        }
    }
}
