import Foundation
import SplashClient
import SplashCore
import SplashJSON
import Testing
import TestSupport

/// Issue 12: temporary files (`.history.jsonl.tmp-PID`, `.launch-counter.json.tmp-PID`) left by
/// crashes were never removed, so they piled up on devices that lose power. And what the daemon
/// does with a torn history line or a corrupt counter file: bad input loses nothing.
@MainActor @Suite struct StateFileChaosTests {
    static let config = TestConfig.splash(exitAnimation: "10ms") + """
        [[step]]
        id = "count"
        plugin = "launch-counter"
        [step.options]
        count_when = "always"
        """

    /// Waits for the `finished` state of a launch other than `previous`; returns its launch id.
    static func waitForFinished(_ daemon: DaemonProcess, after previous: String? = nil) throws -> String {
        let client = try daemon.connect()
        return try client.follow(timeout: .seconds(20)) { state, _ in
            state.phase != .finished || state.launch == previous
        }.launch
    }

    @Test func temporariesLeftByACrashAreRemovedAtStartAndOthersAreNot() throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let dead = try deadProcessID()
        let stale = [
            ".history.jsonl.tmp-\(dead)", ".launch-counter.json.tmp-\(dead)", ".launched.tmp-\(dead)",
            // A live process, but not a splashd: it will never rename its file.
            ".session.json.tmp-\(getpid())",
        ]
        for name in stale { _ = try state.write(name, #"{"half":"#) }
        // Not temporaries of an atomic write: kept.
        let others = [".notes.tmp-x", "history.jsonl.tmp-\(dead)", "config.json"]
        for name in others { _ = try state.write(name, "mine") }
        try FileManager.default.createDirectory(atPath: state.file(".dir.tmp-\(dead)"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: state.file(".link.tmp-\(dead)"), withDestinationPath: "config.json")

        let daemon = try DaemonProcess(config: Self.config, stateDirectory: state.path)
        _ = try Self.waitForFinished(daemon)
        #expect(daemon.stop() == 0)
        for name in stale { #expect(!state.exists(name), "\(name) was left") }
        for name in others + [".dir.tmp-\(dead)"] { #expect(state.exists(name), "\(name) was removed") }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: state.file(".link.tmp-\(dead)"))) == "config.json")
        #expect(daemon.logLines(containing: "removed 4 temporary file(s) left by an interrupted write").count == 1, "\(daemon.log)")
        let names = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(names.filter { $0.hasPrefix(".") && $0.contains(".tmp-") && !others.contains($0) }.sorted() == [".dir.tmp-\(dead)", ".link.tmp-\(dead)"])
    }

    @Test func aTornHistoryLineAndACorruptCounterLoseNothingElse() throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        // Two launches, recorded.
        let first = try DaemonProcess(config: Self.config, stateDirectory: state.path)
        let launch1 = try Self.waitForFinished(first)
        #expect(try first.connect().request(.relaunch) == .ok(id: 1))
        let launch2 = try Self.waitForFinished(first, after: launch1)
        #expect(first.stop() == 0)
        let history = try #require(state.read("history.jsonl"))
        #expect(HistoryLog.decode(Array(history.utf8)).log.records.map(\.launch) == [launch1, launch2])

        // A power cut in the middle of an append, and a counter file damaged on the disk.
        let handle = try #require(FileHandle(forWritingAtPath: state.file("history.jsonl")))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"launch":"torn","gra"#.utf8))
        try handle.close()
        let corrupt = #"{"format":1,"count":"#
        _ = try state.write("launch-counter.json", corrupt)

        let second = try DaemonProcess(config: Self.config, stateDirectory: state.path)
        let launch3 = try Self.waitForFinished(second)
        #expect(second.isRunning)
        #expect(second.logLines(containing: "history: skipped 1 unreadable line(s)").count == 1, "\(second.log)")
        #expect(second.logLines(containing: "launch counter file is corrupt").count == 1, "\(second.log)")
        #expect(second.stop() == 0)

        // The history keeps both records and the new one, and no torn line.
        let repaired = try #require(state.read("history.jsonl"))
        let decoded = HistoryLog.decode(Array(repaired.utf8))
        #expect(decoded.malformedLines == 0)
        #expect(decoded.log.records.map(\.launch) == [launch1, launch2, launch3])
        #expect(repaired.hasSuffix("\n"))
        // The damaged counter is kept for inspection, and a well-formed one replaces it.
        #expect(state.read("launch-counter.json.corrupt") == corrupt)
        let counter = try #require(state.read("launch-counter.json"))
        #expect(try JSONValue.parse(Array(counter.utf8)).objectValue?["count"]?.int64Value != nil)

        // A third start finds nothing to complain about.
        let third = try DaemonProcess(config: Self.config, stateDirectory: state.path)
        _ = try Self.waitForFinished(third)
        #expect(third.stop() == 0)
        #expect(third.logLines(containing: "unreadable").isEmpty && third.logLines(containing: "corrupt").isEmpty, "\(third.log)")
    }
}
