import Foundation
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashPlugins
import TestSupport
import Testing

/// The spool is a real directory: symlinks are refused, and its files' content reaches the log
/// only as a short escaped excerpt (design §7).
@Suite("quick-action: the spool's links and contents", .timeLimit(.minutes(10)))
struct QuickActionSpoolTests {
    let state: TemporaryDirectory
    let elsewhere: TemporaryDirectory
    let log = LogCapture()
    let options: [String: JSONValue] = ["scheme": "kiosk", "routes": .array(["orders/*"])]

    /// What an `sshd_config` looks like: nothing of it may be logged, and it must stay.
    static let secretText = "PermitRootLogin yes\nPasswordAuthentication SECRET-SSHD-LINE\n"

    init() throws {
        state = try TemporaryDirectory(prefix: "splash-spool")
        elsewhere = try TemporaryDirectory(prefix: "splash-spool-target")
    }

    private func run(options: [String: JSONValue]? = nil) async throws -> Facts {
        let context = quickActionTestContext(
            step: "quick-action", plugin: "quick-action", options: options ?? self.options, log: log
        )
        return try await QuickActionPlugin(device: DeviceState(stateDirectory: state.path), inbox: QuickActionInbox()).run(context)
    }

    private static let none: Facts = ["action": nil, "route": nil, "sheet": nil]

    @Test func aSpoolThatIsASymlinkIsRefusedAndItsTargetLeftAlone() async throws {
        defer {
            state.remove()
            elsewhere.remove()
        }
        try elsewhere.write("sshd_config", Self.secretText)
        try elsewhere.write("orders", "kiosk://orders/1")
        #expect(symlink(elsewhere.path, state.file("spool")) == 0)

        #expect(try await run() == Self.none)
        #expect(elsewhere.read("sshd_config") == Self.secretText, "a file behind the link was removed")
        #expect(elsewhere.read("orders") == "kiosk://orders/1", "a file behind the link was taken")
        #expect(!log.allText.contains("SECRET-SSHD-LINE"))
        #expect(!log.allText.contains("PermitRootLogin"))
        #expect(log.records(.error, containing: "symlink").count == 1)
    }

    @Test func aSpoolGivenAsASymlinkOptionIsRefusedToo() async throws {
        defer {
            state.remove()
            elsewhere.remove()
        }
        try elsewhere.write("sshd_config", Self.secretText)
        #expect(symlink(elsewhere.path, state.file("link")) == 0)
        var options = self.options
        options["spool"] = .string(state.file("link"))
        #expect(try await run(options: options) == Self.none)
        #expect(elsewhere.read("sshd_config") == Self.secretText)
        #expect(!log.allText.contains("SECRET-SSHD-LINE"))
    }

    @Test func aSymlinkedEntryIsRefusedAndNotDeletedThroughTheLink() async throws {
        defer {
            state.remove()
            elsewhere.remove()
        }
        try elsewhere.write("sshd_config", Self.secretText)
        try FileManager.default.createDirectory(atPath: state.file("spool"), withIntermediateDirectories: true)
        #expect(symlink(elsewhere.file("sshd_config"), state.file("spool/link")) == 0)
        try state.write("spool/real", "kiosk://orders/7")

        #expect(try await run() == ["action": "kiosk://orders/7", "route": "orders/7", "sheet": nil])
        #expect(elsewhere.read("sshd_config") == Self.secretText)
        #expect(!log.allText.contains("SECRET-SSHD-LINE"))
        #expect(!log.allText.contains("PermitRootLogin"))
        #expect(log.records(.warning, containing: "not a regular file").count == 1)
        // The link itself is left where it is, the real file is taken.
        #expect(quickActionDirectoryNames(state.file("spool")) == ["link"])
    }

    @Test func anUnknownSpoolFileIsLoggedAsAShortExcerpt() async throws {
        defer {
            state.remove()
            elsewhere.remove()
        }
        let hostile = "kiosk://x\u{1B}[31m\rFORGED-LINE critical root login " + String(repeating: "A", count: 3_000) + "TAIL-MARKER"
        try state.write("spool/hostile", hostile)
        #expect(try await run() == Self.none)
        let warnings = log.records(.warning, containing: "dropped")
        #expect(warnings.count == 1)
        // The escape and the carriage return are the log handler's to escape (LogForgeryChaosTests).
        let text = log.allText
        #expect(!text.contains("TAIL-MARKER"), "more than an excerpt reached the log")
        #expect(warnings.allSatisfy { $0.text.count < 400 })
    }
}
