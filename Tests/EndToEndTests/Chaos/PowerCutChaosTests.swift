import Foundation
import SplashClient
import SplashCore
import SplashJSON
import SplashProtocol
import Testing
import TestSupport

/// Issue 12: a power-cut loop. The real daemon is SIGKILLed at random instants during launches
/// (the launch counter counting every launch, history on) and started again, at least 200 times.
/// After every kill no state file may be corrupt, and the count may never go back or skip.
@MainActor @Suite struct PowerCutChaosTests {
    static let kills = 200
    static let seed: UInt64 = 0x5EED_1212

    static let config = TestConfig.splash(exitAnimation: "1ms") + """
        [[step]]
        id = "count"
        plugin = "launch-counter"
        [step.options]
        count_when = "always"
        min_launches = 3
        version = "1.0"
        """

    /// SplitMix64: the same kill instants on every run.
    typealias SeededGenerator = SplitMix64

    /// What the state directory holds while no daemon runs.
    struct Files {
        /// The counter's count; 0 when there is no counter file.
        var count = 0
        /// Whether `history.jsonl` ends in a partial line (a torn append; reading skips it).
        var tornTail = false
        var historyRecords = 0
        var temporaries: [String] = []
    }

    /// Reads the state files; anything corrupt is added to `problems`.
    static func check(_ state: TemporaryDirectory, problems: inout [String]) -> Files {
        var files = Files()
        if let bytes = FileManager.default.contents(atPath: state.file("launch-counter.json")) {
            if let object = try? JSONValue.parse(Array(bytes)).objectValue, let count = object["count"]?.int64Value, bytes.last == 0x0A {
                files.count = Int(count)
            } else {
                problems.append("the counter file is corrupt: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        if let bytes = FileManager.default.contents(atPath: state.file("history.jsonl")) {
            let complete = bytes.lastIndex(of: 0x0A).map { bytes[...$0] } ?? bytes.prefix(0)
            files.tornTail = complete.count < bytes.count
            let decoded = HistoryLog.decode(Array(complete))
            files.historyRecords = decoded.log.records.count
            if decoded.malformedLines > 0 {
                problems.append("\(decoded.malformedLines) corrupt history line(s)")
            }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []
        files.temporaries = names.filter { $0.contains(".tmp-") }
        if names.contains(where: { $0.hasSuffix(".corrupt") }) {
            problems.append("a state file was found corrupt by the daemon: \(names)")
        }
        return files
    }

    /// The counts the daemon logged as counted (`launch counted`, in order), from its JSON log.
    static func loggedCounts(_ daemon: DaemonProcess) -> [Int] {
        daemon.log.split(separator: "\n").compactMap { line in
            guard line.contains("launch counted"), let object = try? JSONValue.parse(Array(line.utf8)).objectValue,
                object["message"]?.stringValue == "launch counted", let count = object["count"]?.stringValue
            else { return nil }
            return Int(count)
        }
    }

    /// Follows the launches of `daemon`, relaunching each one that finishes, and SIGKILLs it
    /// after `states` states plus `delay` microseconds. Returns the launch ids seen.
    static func runUntilKilled(_ daemon: DaemonProcess, states: Int, delay: UInt32) throws -> Set<String> {
        var launches: Set<String> = []
        var relaunched: Set<String> = []
        defer {
            usleep(delay)
            daemon.killAndWait()
        }
        guard states > 0 else { return launches }
        let client = try daemon.connect()
        try client.send(Request(.subscribe))
        var seen = 0
        while seen < states {
            guard case .state(let state) = try client.receive(timeout: .seconds(10)) else { continue }
            seen += 1
            launches.insert(state.launch)
            if state.phase == .finished, !relaunched.contains(state.launch) {
                relaunched.insert(state.launch)
                try client.send(Request(.relaunch))
            }
        }
        return launches
    }

    @Test func twoHundredKillsNeverCorruptAFileOrLoseACount() throws {
        let state = try TemporaryDirectory(prefix: "splashd-powercut")
        defer { state.remove() }
        var random = SeededGenerator(state: Self.seed)
        var files = Files()
        var launches = 0
        var countedByTheLog = 0
        var tornTails = 0
        var temporariesLeft = 0
        var countsWithoutALogLine = 0
        let started = ContinuousClock.now
        for kill in 1...Self.kills {
            let states = Int.random(in: 0...10, using: &random)
            let delay = UInt32.random(in: 0..<1500, using: &random)
            let daemon = try DaemonProcess(config: Self.config, extraArguments: ["--log-format", "json"], stateDirectory: state.path)
            let seen: Set<String>
            do {
                seen = try Self.runUntilKilled(daemon, states: states, delay: delay)
            } catch {
                Issue.record("kill \(kill): \(error)\n\(daemon.log)")
                break
            }
            launches += seen.count
            let before = files.count
            var problems: [String] = []
            files = Self.check(state, problems: &problems)
            tornTails += files.tornTail ? 1 : 0
            temporariesLeft += files.temporaries.count
            // Every launch counted once: the logged counts follow on from the file's count, one
            // by one, and the file holds the last of them or, when the kill came between the
            // write and the log line, one more.
            let logged = Self.loggedCounts(daemon)
            countedByTheLog += logged.count
            if logged != Array((before + 1)..<(before + 1 + logged.count)) {
                problems.append("the counts logged, \(logged), do not follow on from \(before)")
            }
            let last = logged.last ?? before
            if files.count != last && files.count != last + 1 {
                problems.append("the file says \(files.count) after the count \(last)")
            }
            countsWithoutALogLine += files.count - last
            if !problems.isEmpty {
                Issue.record("kill \(kill) (after \(states) states + \(delay) µs): \(problems.joined(separator: "; "))\n\(daemon.log)")
                break
            }
        }
        // A clean start after it all: no temporary left, the history whole, the count goes on.
        let final = try DaemonProcess(config: Self.config, extraArguments: ["--log-format", "json"], stateDirectory: state.path)
        let client = try final.connect()
        _ = try client.follow(timeout: .seconds(20)) { state, _ in state.phase != .finished }
        #expect(final.stop() == 0)
        var problems: [String] = []
        let after = Self.check(state, problems: &problems)
        #expect(problems.isEmpty, "\(problems)")
        #expect(after.temporaries.isEmpty)
        #expect(!after.tornTail)
        #expect(after.count == files.count + 1)
        print(
            """
            power cut: \(Self.kills) SIGKILLs in \(ContinuousClock.now - started), \(launches) launches seen, \
            count \(files.count) (\(countedByTheLog) logged, \(countsWithoutALogLine) counted just before a kill), \
            \(after.historyRecords) history records kept, \(tornTails) torn history tails, \
            \(temporariesLeft) temporaries found after kills (removed at the next start)
            """
        )
    }
}
