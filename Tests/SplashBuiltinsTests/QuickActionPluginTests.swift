import Foundation
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashPlugins
import SplashProtocol
import TestSupport
import Testing

@Suite("quick-action", .timeLimit(.minutes(10)))
struct QuickActionPluginTests {
    let state: TemporaryDirectory
    let log = LogCapture()
    let inbox = QuickActionInbox()
    let options: [String: JSONValue] = [
        "scheme": "kiosk",
        "routes": .array(["orders", "/orders/*"]),
        "actions": .object([
            "feedback-form": .object(["sheet": "feedback-form"]),
            "new-order": .object(["route": "/orders/new", "sheet": "editor"]),
        ]),
    ]

    init() throws { state = try TemporaryDirectory(prefix: "splash-quick") }

    private func makePlugin() -> QuickActionPlugin {
        QuickActionPlugin(device: DeviceState(stateDirectory: state.path), inbox: inbox)
    }

    private func run(
        _ plugin: QuickActionPlugin? = nil,
        options: [String: JSONValue]? = nil,
        launch: String = "L1",
        attempt: Int = 1
    ) async throws -> Facts {
        let context = quickActionTestContext(
            step: "quick-action", plugin: "quick-action", options: options ?? self.options,
            launch: launch, attempt: attempt, log: log
        )
        return try await (plugin ?? makePlugin()).run(context)
    }

    /// Writes a spool file with modification time `at` (seconds after the epoch).
    private func spool(_ name: String, _ text: String, at seconds: Double, directory: String = "spool") throws {
        let path = try state.write("\(directory)/\(name)", text)
        try quickActionSetModified(path, seconds: seconds)
    }

    private static let none: Facts = ["action": nil, "route": nil, "sheet": nil]

    @Test func nothingPendingAndNoSpoolDirectory() async throws {
        defer { state.remove() }
        #expect(try await run() == Self.none)
        #expect(log.records.filter { $0.level >= .warning }.isEmpty)
    }

    @Test func oneSpoolFileIsTakenAndRemoved() async throws {
        defer { state.remove() }
        try spool("link", "kiosk://orders/42\n", at: 1_000)
        #expect(try await run() == ["action": "kiosk://orders/42", "route": "orders/42", "sheet": nil])
        #expect(quickActionDirectoryNames(state.file("spool")).isEmpty)
        // Taken once: the next launch has nothing.
        #expect(try await run(launch: "L2") == Self.none)
    }

    @Test func newestResolvableSpoolFileWinsAndUnknownOnesAreLogged() async throws {
        defer { state.remove() }
        // Names sort the other way round from the times, so order comes from the mtime.
        try spool("a", "kiosk://elsewhere/1", at: 4_000)  // newest, but unknown
        try spool("b", "new-order", at: 3_000)  // newest that resolves
        try spool("c", "feedback-form", at: 2_000)
        try spool("d", "no-such-action", at: 1_000)
        let facts = try await run()
        #expect(facts == ["action": "new-order", "route": "orders/new", "sheet": "editor"])
        #expect(log.records(.warning, containing: "kiosk://elsewhere/1").count == 1)
        #expect(log.records(.warning, containing: "no-such-action").count == 1)
        #expect(log.records(.info, containing: "superseded").count == 1)
        #expect(quickActionDirectoryNames(state.file("spool")).isEmpty)
    }

    @Test func inboxCommandsAreNewerThanSpoolFiles() async throws {
        defer { state.remove() }
        // Even a spool file dated in the future loses to a command received while loading.
        try spool("later", "new-order", at: Date().timeIntervalSince1970 + 3_600)
        inbox.post(.action("feedback-form"))
        inbox.post(.action("not-configured"))  // newest, unknown: dropped
        #expect(try await run() == ["action": "feedback-form", "route": nil, "sheet": "feedback-form"])
        #expect(log.records(.warning, containing: "not-configured").count == 1)
        #expect(inbox.count == 0)
    }

    @Test func onlyUnknownInputsNeverFailTheLaunch() async throws {
        defer { state.remove() }
        try spool("1", "https://example.com/orders", at: 1_000)
        try spool("2", "", at: 1_001)
        try spool("3", String(repeating: "x", count: 5_000), at: 1_002)
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: state.file("spool/4")))
        inbox.post(.open("kiosk://orders/../secret"))
        #expect(try await run() == Self.none)
        #expect(log.records.filter { $0.level == .warning }.count == 5)
        #expect(quickActionDirectoryNames(state.file("spool")).isEmpty)
    }

    @Test func hiddenFilesAndDirectoriesInTheSpoolAreLeftAlone() async throws {
        defer { state.remove() }
        try spool(".incoming", "feedback-form", at: 1_000)
        try FileManager.default.createDirectory(atPath: state.file("spool/sub"), withIntermediateDirectories: true)
        try spool("sub/inner", "feedback-form", at: 1_000)
        #expect(try await run() == Self.none)
        #expect(quickActionDirectoryNames(state.file("spool")) == [".incoming", "sub"])
    }

    @Test func queryAndFragmentNeverReachFactsOrLogs() async throws {
        defer { state.remove() }
        inbox.post(.open("kiosk://orders/7?token=s3cr3t#frag"))
        inbox.post(.open("kiosk://nowhere?token=t0k3n"))
        let facts = try await run()
        #expect(facts == ["action": "kiosk://orders/7", "route": "orders/7", "sheet": nil])
        #expect(log.records(.warning, containing: "kiosk://nowhere?…").count == 1)
        #expect(!log.allText.contains("s3cr3t"))
        #expect(!log.allText.contains("t0k3n"))
    }

    @Test func customSpoolDirectory() async throws {
        defer { state.remove() }
        try spool("x", "feedback-form", at: 1_000, directory: "elsewhere")
        try spool("y", "new-order", at: 1_000)  // the default spool is not read
        var options = self.options
        options["spool"] = .string(state.file("elsewhere"))
        #expect(try await run(options: options)["action"] == "feedback-form")
        #expect(state.exists("spool/y"))
    }

    @Test func aRetriedAttemptSeesWhatAnAbandonedOneTook() async throws {
        defer { state.remove() }
        let plugin = makePlugin()
        try spool("x", "feedback-form", at: 1_000)
        inbox.post(.open("kiosk://orders/1"))
        let first = try await run(plugin, attempt: 1)
        // Suppose attempt 1 ran past its timeout: its facts were thrown away.
        let second = try await run(plugin, attempt: 2)
        #expect(first == second)
        #expect(second["route"] == "orders/1")
        // A new launch starts empty.
        #expect(try await run(plugin, launch: "L2") == Self.none)
    }

    @Test func aSpoolFileRememberedAsUnremovableIsNotTakenAgain() async throws {
        defer { state.remove() }
        try spool("stuck", "feedback-form", at: 1_000)
        let attributes = try FileManager.default.attributesOfItem(atPath: state.file("spool/stuck"))
        let inode = try #require(attributes[.systemFileNumber] as? NSNumber).uint64Value
        // What the plugin writes when it cannot remove a spool file it took.
        let entry = #"[{"path":"\#(state.file("spool/stuck"))","inode":\#(inode),"size":13,"mtime_s":1000,"mtime_ns":0}]"#
        try state.write("quick-action-spool.json", entry)
        #expect(try await run() == Self.none)
        #expect(state.exists("spool/stuck"))

        // Once the file changes, it is a new input and the old entry is forgotten.
        try spool("stuck", "new-order", at: 2_000)
        #expect(try await run(launch: "L2")["action"] == "new-order")
        #expect(state.read("quick-action-spool.json")?.contains("stuck") == false)
    }

    @Test(.enabled(if: getuid() != 0, "root may remove files from a read-only directory"))
    func aSpoolFileThatCannotBeRemovedIsTakenOnce() async throws {
        defer {
            chmod(state.file("spool"), 0o755)
            state.remove()
        }
        try spool("stuck", "feedback-form", at: 1_000)
        chmod(state.file("spool"), 0o555)
        #expect(try await run()["action"] == "feedback-form")
        #expect(log.records(.error, containing: "cannot remove").count == 1)
        #expect(try await run(launch: "L2") == Self.none)
        // After a restart too.
        #expect(try await run(makePlugin(), launch: "L3") == Self.none)
    }

    @Test(arguments: [
        (["spool": 5], "option 'spool'"),
        (["spool": ""], "option 'spool'"),
        (["route": .array(["/x"])], "unknown option 'route'"),
        (["scheme": "kiosk", "routes": .array(["a b"])], "option 'routes'"),
    ] as [([String: JSONValue], String)])
    func badOptionsFailForGood(options: [String: JSONValue], mentioned: String) async throws {
        defer { state.remove() }
        try spool("x", "feedback-form", at: 1_000)
        let error = await #expect(throws: StepFailure.self) { try await run(options: options) }
        #expect(error?.code == .badOptions)
        #expect(error?.retryable == false)
        #expect(error?.message.contains(mentioned) == true)
        #expect(state.exists("spool/x"))  // nothing is taken when the options are bad
    }

    @Test func factsFitTheDestinationRule() async throws {
        defer { state.remove() }
        inbox.post(.action("new-order"))
        let facts = try await run()
        let merged = (["authenticated": false, "first_launch": false] as Facts).merging(facts) { _, new in new }
        #expect(Destination.decide(from: merged) == Destination(screen: .login, route: "orders/new", sheet: "editor"))
    }
}

@Suite("QuickActionInbox", .timeLimit(.minutes(10)))
struct QuickActionInboxTests {
    @Test func concurrentPostsAreAllDrainedOnce() async {
        let inbox = QuickActionInbox(capacity: 1_000)
        await withTaskGroup(of: Void.self) { group in
            for n in 0..<200 {
                group.addTask { inbox.post(.action("a\(n)")) }
            }
        }
        let drained = inbox.drain()
        #expect(Set(drained).count == 200)
        #expect(inbox.drain().isEmpty)
    }

    @Test func keepsTheNewestUpToItsCapacity() async {
        let inbox = QuickActionInbox(capacity: 3)
        for n in 1...5 { inbox.post(.open("kiosk://orders/\(n)")) }
        #expect(inbox.drain() == [.open("kiosk://orders/3"), .open("kiosk://orders/4"), .open("kiosk://orders/5")])
    }

    @Test func resetForgetsQueuedInputs() async {
        let inbox = QuickActionInbox()
        inbox.post(.action("x"))
        inbox.reset()
        #expect(inbox.count == 0)
        #expect(inbox.drain().isEmpty)
    }
}
