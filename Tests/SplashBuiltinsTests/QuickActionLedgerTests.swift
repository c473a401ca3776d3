import Foundation
@testable import SplashBuiltins
import SplashCore
import SplashPlugins
import TestSupport
import Testing

/// The memory of spool files that could not be removed (running as root, a test cannot make
/// `unlink` fail, so the ledger is driven directly here).
@Suite("QuickActionLedger", .timeLimit(.minutes(10)))
struct QuickActionLedgerTests {
    @Test func unremovableFilesAreRememberedAcrossRestarts() async throws {
        let state = try TemporaryDirectory(prefix: "splash-ledger")
        defer { state.remove() }
        let log = LogCapture()
        let path = try state.write("spool/stuck", "kiosk://orders/1")
        let identity = try #require(QuickActionSpool.identity(of: path))
        QuickActionLedger(path: state.file("quick-action-spool.json")).ignore([identity], logger: log.logger())

        // A restarted daemon: a new ledger reads the file.
        let reloaded = QuickActionLedger(path: state.file("quick-action-spool.json"))
        #expect(reloaded.ignored(logger: log.logger()) == [identity])
        let plugin = QuickActionPlugin(device: DeviceState(stateDirectory: state.path), inbox: QuickActionInbox())
        let context = quickActionTestContext(
            step: "quick-action", plugin: "quick-action",
            options: ["scheme": "kiosk", "routes": .array(["/orders/*"])], log: log
        )
        #expect(try await plugin.run(context)["action"] == .null)
        #expect(state.exists("spool/stuck"))

        // Gone: forgotten, and the file says so.
        try FileManager.default.removeItem(atPath: path)
        #expect(reloaded.ignored(logger: log.logger()).isEmpty)
        #expect(state.read("quick-action-spool.json") == "[]\n")
    }

    @Test func aDamagedLedgerIsIgnoredWithAWarning() throws {
        let state = try TemporaryDirectory(prefix: "splash-ledger")
        defer { state.remove() }
        let log = LogCapture()
        try state.write("quick-action-spool.json", "[{\"path\": 1}, {\"inode\": -1e300")
        #expect(QuickActionLedger(path: state.file("quick-action-spool.json")).ignored(logger: log.logger()).isEmpty)
        #expect(log.records(.warning, containing: "unreadable list").count == 1)
        // Entries of the wrong shape or range are skipped, never trapped on.
        try state.write("quick-action-spool.json", #"[{"path":"/x","inode":-1,"size":1e300,"mtime_s":0.5,"mtime_ns":0}]"#)
        #expect(QuickActionLedger(path: state.file("quick-action-spool.json")).ignored(logger: log.logger()).isEmpty)
    }
}
