import Foundation
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashPlugins
import SplashProtocol
import TestSupport
import Testing

@Suite("launch-counter", .timeLimit(.minutes(10)))
struct LaunchCounterPluginTests {
    let state: TemporaryDirectory
    let log = LogCapture()

    init() throws { state = try TemporaryDirectory(prefix: "splash-counter") }

    private var plugin: LaunchCounterPlugin { LaunchCounterPlugin(device: DeviceState(stateDirectory: state.path)) }

    /// Runs one launch (a fresh plugin each time, as after a restart, unless `plugin` is given).
    private func launch(
        _ id: String,
        signedIn: Bool? = true,
        options: [String: JSONValue] = [:],
        attempt: Int = 1,
        plugin: LaunchCounterPlugin? = nil
    ) async throws -> Facts {
        let facts: [String: Facts] = signedIn.map { ["auth-refresh": ["authenticated": .bool($0), "first_launch": false]] } ?? [:]
        let context = quickActionTestContext(
            step: "launch-counter", plugin: "launch-counter", options: options,
            dependencyFacts: facts, launch: id, attempt: attempt, log: log
        )
        return try await (plugin ?? self.plugin).run(context)
    }

    /// The counter file, parsed with Foundation (an independent reader).
    private func stored(_ name: String = "launch-counter.json") throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: state.file(name)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func countsOnlySignedInLaunchesByDefault() async throws {
        defer { state.remove() }
        #expect(try await launch("L1", signedIn: true)["count"] == 1)
        #expect(try await launch("L2", signedIn: false) == ["count": 1, "review_prompt": false])
        #expect(try await launch("L3", signedIn: true)["count"] == 2)
        #expect(try stored()["count"] as? Int == 2)
        #expect(log.records(.debug, containing: "not signed in").count == 1)
    }

    @Test func signedInModeWithoutAnyAuthFactsCountsNothingAndSaysWhy() async throws {
        defer { state.remove() }
        #expect(try await launch("L1", signedIn: nil)["count"] == 0)
        #expect(log.records(.warning, containing: "no dependency reports 'authenticated'").count == 1)
        #expect(!state.exists("launch-counter.json"))
    }

    @Test func alwaysCountsEveryLaunch() async throws {
        defer { state.remove() }
        let options: [String: JSONValue] = ["count_when": "always"]
        #expect(try await launch("L1", signedIn: nil, options: options)["count"] == 1)
        #expect(try await launch("L2", signedIn: false, options: options)["count"] == 2)
        #expect(try await launch("L3", signedIn: true, options: options)["count"] == 3)
    }

    @Test func reviewPromptOncePerVersionAcrossRestarts() async throws {
        defer { state.remove() }
        let v1: [String: JSONValue] = ["min_launches": 3, "version": "1.0"]
        var prompts: [Bool] = []
        for n in 1...5 {
            // A new plugin instance per launch: the state lives only in the file.
            prompts.append(try await launch("L\(n)", options: v1)["review_prompt"] == true)
        }
        #expect(prompts == [false, false, true, false, false])
        #expect(try stored()["prompted_versions"] as? [String] == ["1.0"])

        let v2: [String: JSONValue] = ["min_launches": 3, "version": "2.0"]
        #expect(try await launch("L6", options: v2) == ["count": 6, "review_prompt": true])
        #expect(try await launch("L7", options: v2) == ["count": 7, "review_prompt": false])
        #expect(try await launch("L8", options: v1)["review_prompt"] == false)
        #expect(try stored()["prompted_versions"] as? [String] == ["1.0", "2.0"])
    }

    @Test func aLaunchThatIsNotCountedNeverPrompts() async throws {
        defer { state.remove() }
        let options: [String: JSONValue] = ["min_launches": 1, "version": "1.0"]
        #expect(try await launch("L1", signedIn: false, options: options) == ["count": 0, "review_prompt": false])
        #expect(try await launch("L2", signedIn: true, options: options) == ["count": 1, "review_prompt": true])
    }

    @Test func retriedAttemptOfTheSameLaunchDoesNotCountTwice() async throws {
        defer { state.remove() }
        let options: [String: JSONValue] = ["min_launches": 1, "version": "1.0"]
        let plugin = self.plugin
        #expect(try await launch("L1", options: options, attempt: 1, plugin: plugin) == ["count": 1, "review_prompt": true])
        // The attempt's result was lost (say it ran past its timeout); the retry reports the same.
        #expect(try await launch("L1", options: options, attempt: 2, plugin: plugin) == ["count": 1, "review_prompt": true])
        #expect(try await launch("L2", options: options, plugin: plugin) == ["count": 2, "review_prompt": false])
        #expect(try await launch("L2", options: options, attempt: 2, plugin: plugin) == ["count": 2, "review_prompt": false])
    }

    @Test func concurrentAttemptsOfOneLaunchCountOnce() async throws {
        defer { state.remove() }
        _ = try await launch("L0")
        let plugin = self.plugin
        let counts = try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            for attempt in 1...8 {
                group.addTask { try await self.launch("L1", attempt: attempt, plugin: plugin)["count"] }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.allSatisfy { $0 == 2 })
        #expect(try stored()["count"] as? Int == 2)
    }

    @Test func corruptFileIsKeptAsideAndCountingStartsAfresh() async throws {
        defer { state.remove() }
        try state.write("launch-counter.json", "{\"count\": 12, \"prompted_vers")
        let facts = try await launch("L1", options: ["min_launches": 1, "version": "1.0"])
        #expect(facts == ["count": 1, "review_prompt": true])
        #expect(state.read("launch-counter.json.corrupt") == "{\"count\": 12, \"prompted_vers")
        #expect(try stored()["count"] as? Int == 1)
        let errors = log.records(.error, containing: "corrupt")
        #expect(errors.count == 1)
        #expect(errors.first?.message.contains("launch-counter.json.corrupt") == true)
    }

    @Test func wellFormedJSONWithBadFieldsIsCorruptToo() async throws {
        defer { state.remove() }
        try state.write("launch-counter.json", #"{"format":1,"count":-3}"#)
        #expect(try await launch("L1")["count"] == 1)
        #expect(state.read("launch-counter.json.corrupt") == #"{"format":1,"count":-3}"#)
        #expect(log.records(.error, containing: "not a whole number").count == 1)
    }

    @Test func unreadableCounterPathIsKeptAside() async throws {
        defer { state.remove() }
        try FileManager.default.createDirectory(atPath: state.file("launch-counter.json"), withIntermediateDirectories: false)
        #expect(try await launch("L1")["count"] == 1)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: state.file("launch-counter.json.corrupt"), isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(log.records(.error, containing: "cannot be read").count == 1)
    }

    @Test func everyWriteLeavesOneParsableFileAndNoTemporaries() async throws {
        defer { state.remove() }
        // A temporary left by a write that crashed before its rename: the real file still rules.
        try state.write(".launch-counter.json.tmp-99999", "{\"count\": 10")
        for n in 1...5 {
            _ = try await launch("L\(n)", options: ["count_when": "always"])
            #expect(try stored()["count"] as? Int == n)
            #expect(try stored()["last_counted_launch"] as? String == "L\(n)")
            let temporaries = quickActionDirectoryNames(state.path).filter { $0.contains(".tmp-") && !$0.hasSuffix("99999") }
            #expect(temporaries.isEmpty)
        }
    }

    @Test func customFileOption() async throws {
        defer { state.remove() }
        _ = try await launch("L1", options: ["file": "review/counter.json"])  // missing directory: cannot write
        #expect(log.records(.error, containing: "cannot store the launch count").count == 1)
        try FileManager.default.createDirectory(atPath: state.file("review"), withIntermediateDirectories: false)
        #expect(try await launch("L2", options: ["file": "review/counter.json"]) == ["count": 1, "review_prompt": false])
        #expect(try stored("review/counter.json")["count"] as? Int == 1)
        #expect(!state.exists("launch-counter.json"))
    }

    @Test func writeFailureNeitherFailsNorPrompts() async throws {
        defer { state.remove() }
        let facts = try await launch("L1", options: ["file": "/nonexistent-dir/c.json", "min_launches": 1])
        #expect(facts == ["count": 1, "review_prompt": false])
    }

    @Test(arguments: [
        (["min_launches": 0], "min_launches"),
        (["min_launches": "five"], "min_launches"),
        (["min_launches": 2.5], "min_launches"),
        (["version": 3], "version"),
        (["version": "  "], "version"),
        (["count_when": "sometimes"], "count_when"),
        (["file": ""], "file"),
        (["min_launch": 3], "unknown option 'min_launch'"),
    ] as [([String: JSONValue], String)])
    func badOptionsFailForGood(options: [String: JSONValue], mentioned: String) async throws {
        defer { state.remove() }
        let error = await #expect(throws: StepFailure.self) { try await launch("L1", options: options) }
        #expect(error?.code == .badOptions)
        #expect(error?.retryable == false)
        #expect(error?.message.contains(mentioned) == true)
        #expect(!state.exists("launch-counter.json"))
    }

    @Test func factsFitTheDestinationRule() async throws {
        defer { state.remove() }
        let facts = try await launch("L1", options: ["min_launches": 1])
        let merged = (["authenticated": true] as Facts).merging(facts) { _, new in new }
        #expect(Destination.decide(from: merged) == Destination(screen: .home, reviewPrompt: true))
    }
}
