import SplashCore
import SplashProtocol
import SplashReports
import Testing

/// The modes beside a launch in its record: marked in order, kept in the history file, read back
/// (and absent from older records), summed up in `history`.
@Suite struct ModeHistoryTests {
    static func record() -> LaunchRecord {
        LaunchRecord(launch: "L-1", startedAtUnixMs: 1_700_000_000_000, graphFingerprint: "f00d", minDisplayMs: 0,
                     phases: [.init(phase: .loading, atMs: 0), .init(phase: .dismissing, atMs: 9000)], dismissingAtMs: 9000,
                     finishedAtMs: 9300, destination: Destination(screen: .home), steps: [])
    }

    @Test func aModeMachinesEventsAreMarkedAndTheRecordRoundTrips() throws {
        var record = Self.record()
        for (event, at) in [
            (ModeMachine.Event.updateStarted(.rauc), 100), (.modeChanged(from: .launch, to: .update), 100),
            (.updateFinished(.rauc, result: .succeeded, error: nil, duration: .seconds(5)), 5100),
            (.modeChanged(from: .update, to: .launch), 8900), (.shutdownStarted(.reboot), 20000),
        ] as [(ModeMachine.Event, Int64)] {
            if let mark = LaunchRecord.ModeMark(event, atMs: at) { record.mark(mark) }
        }
        #expect(record.modes == [
            .init(mode: .update, atMs: 100, source: .rauc), .init(mode: .update, atMs: 5100, source: .rauc, result: .succeeded),
            .init(mode: .launch, atMs: 8900), .init(mode: .shutdown, atMs: 20000, kind: .reboot),
        ])
        let line = record.jsonLine()
        #expect(String(decoding: line, as: UTF8.self).contains(#""modes":[{"at_ms":100,"mode":"update","source":"rauc"}"#))
        #expect(try LaunchRecord(jsonLine: line) == record)
        #expect(try LaunchRecord(jsonLine: Self.record().jsonLine()).modes == nil, "a record without modes has none")
        // A mode a newer daemon wrote costs the marks, not the record.
        let newer = String(decoding: line, as: UTF8.self).replacingOccurrences(of: #""mode":"shutdown""#, with: #""mode":"recovery""#)
        let read = try LaunchRecord(jsonLine: Array(newer.utf8))
        #expect(read.modes == nil && read.launch == "L-1" && read.destination == Destination(screen: .home))
        let summary = HistorySummary.lines([record])[0]
        #expect(summary.contains("home +update(rauc, succeeded) +shutdown(reboot)"), "\(summary)")
    }

    @Test func anUpdateEndedByQuitOrStillRunningIsNamedWithoutAResult() {
        var record = Self.record()
        record.mark(.init(mode: .update, atMs: 10, source: .psplash))
        record.mark(.init(mode: .launch, atMs: 20))
        record.mark(.init(mode: .update, atMs: 30, source: .splashctl))
        #expect(HistorySummary.lines([record])[0].hasSuffix("home +update(psplash) +update(splashctl)"))
    }

    @Test func theMarksAreBounded() {
        var record = Self.record()
        for index in 0..<200 { record.mark(.init(mode: index % 2 == 0 ? .update : .launch, atMs: Int64(index), source: .psplash)) }
        #expect(record.modes?.count == LaunchRecord.maxModeMarks)
        #expect(record.modes?.first?.atMs == 0 && record.modes?.last?.atMs == 199, "the first and the latest")
    }
}
