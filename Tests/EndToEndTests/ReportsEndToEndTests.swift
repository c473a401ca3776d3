import Foundation
import FoundationXML
import SplashClient
import SplashCore
import SplashJSON
import SplashProtocol
import Testing
import TestSupport

/// History and the operators' reports through the real daemon.
@MainActor @Suite struct ReportsEndToEndTests {
    static let config = TestConfig.instantSplash + """
        [[step]]
        id = "quick"
        plugin = "fast"

        [[step]]
        id = "fetch"
        plugin = "slow"
        label = "Loading configuration"

        [[step]]
        id = "prepare"
        plugin = "fast"
        after = ["fetch", "quick"]
        """

    static func result(_ message: ServerMessage) -> (data: JSONValue, text: String?)? {
        if case .result(_, _, let data, let text) = message { return (data, text) }
        return nil
    }

    /// `records`: each launch's whole record, oldest first, as an exporter reads it.
    @Test func recordsGiveEachLaunchWhole() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("fast", "exit 0")
        try plugins.add("slow", "sleep 0.05")
        let daemon = try DaemonProcess(config: Self.config, pluginDirectories: [plugins.directory])
        let client = try daemon.connect()
        var launches: [String] = []
        for launch in 1...2 {
            try client.follow(timeout: .seconds(30)) { state, _ in
                if state.phase == .finished { launches.append(state.launch) }
                return state.phase != .finished
            }
            if launch == 1 { _ = try client.request(.relaunch) }
        }
        let reply = try #require(Self.result(try client.request(.report(.records))))
        guard case .array(let values) = reply.data else {
            Issue.record("records is not an array: \(reply.data)")
            return
        }
        let records = try values.map { value -> LaunchRecord in
            var writer = JSONWriter()
            writer.value(value)
            return try LaunchRecord(jsonLine: writer.bytes)
        }
        #expect(records.map(\.launch) == launches, "oldest first")
        let last = try #require(records.last)
        #expect(last.finishedAtMs != nil && last.slowAfterMs == 1000 && last.steps.map(\.id) == ["quick", "fetch", "prepare"])
        #expect(last.steps.allSatisfy { $0.attempts.count == 1 && $0.attempts[0].outcome == .succeeded })
        #expect(reply.text == nil)
    }

    @Test func blameAndCriticalChainNameTheStepThatReallyWasSlowest() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("fast", "exit 0")
        // Slower than starting a plugin process by far, even under a sanitizer on a loaded machine
        // (a ThreadSanitizer run once took longer than 0.3 s to start the fast one).
        try plugins.add("slow", "sleep \(1.5 * Double(waitScale))")
        let state = dir.file("state")
        do {
            let daemon = try DaemonProcess(config: Self.config, pluginDirectories: [plugins.directory], stateDirectory: state)
            let client = try daemon.connect()
            var etaSeen: [Bool] = []
            for launch in 1...3 {
                var eta = false
                try client.follow(timeout: .seconds(30)) { state, _ in
                    if state.phase == .loading && state.etaMs != nil { eta = true }
                    return state.phase != .finished
                }
                etaSeen.append(eta)
                if launch < 3 { _ = try client.request(.relaunch) }
            }
            #expect(etaSeen == [false, true, true], "an ETA once there is history")
            let blame = try #require(Self.result(try client.request(.report(.blame))))
            let first = try #require(blame.data.objectValue?["steps"]?.array?.first?.objectValue)
            #expect(first["id"] == "fetch")
            #expect(blame.text?.split(separator: "\n").first?.hasSuffix("fetch") == true)

            let chain = try #require(Self.result(try client.request(.report(.criticalChain))))
            let text = try #require(chain.text)
            #expect(text.contains("└─prepare @"))
            #expect(text.contains("└─fetch @"))
            #expect(!text.contains("quick @"), "the fast branch did not decide the dismissing instant")

            let plot = try #require(Self.result(try client.request(.report(.plot))))
            let svg = try #require(plot.data.objectValue?["svg"]?.stringValue)
            #expect(XMLParser(data: Data(svg.utf8)).parse())
            for id in ["quick", "fetch", "prepare"] { #expect(svg.contains(">\(id)<")) }

            let graph = try #require(Self.result(try client.request(.report(.graph))))
            let dot = try #require(graph.data.objectValue?["dot"]?.stringValue)
            #expect(dot.hasPrefix("digraph"))
            #expect(dot.contains("\"fetch\" -> \"prepare\""))

            let history = try #require(Self.result(try client.request(.report(.history))))
            #expect(history.text?.split(separator: "\n").count == 3)
            #expect(daemon.stop() == 0)
        }
        // The history survives a restart, and a torn or corrupted line costs only itself.
        let file = "\(state)/history.jsonl"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        handle.seekToEndOfFile()
        handle.write(Data("{\"launch\": garbage\n".utf8))
        try handle.close()
        let restarted = try DaemonProcess(config: Self.config, pluginDirectories: [plugins.directory], stateDirectory: state)
        let client = try restarted.connect()
        try client.follow(timeout: .seconds(30)) { state, _ in state.phase != .finished }
        let history = try #require(Self.result(try client.request(.report(.history))))
        #expect(history.text?.split(separator: "\n").count == 4)
        #expect(restarted.log.contains("skipped 1 unreadable line"))
    }

    @Test func reportsBeforeAnyLaunchFinishedDescribeTheRunningOne() throws {
        let daemon = try DaemonProcess(config: """
            [[step]]
            id = "hold"
            plugin = "signal"
            """)
        let client = try daemon.connect()
        _ = try client.follow(timeout: .seconds(10)) { state, _ in state.steps.first?.status != .running }
        let blame = try #require(Self.result(try client.request(.report(.blame))))
        #expect(blame.data.objectValue?["steps"]?.array?.first?.objectValue?["id"] == "hold")
        let history = try #require(Self.result(try client.request(.report(.history))))
        #expect(history.data.objectValue?["launches"]?.array?.isEmpty ?? true)
    }
}

extension JSONValue {
    var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
