import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// The JSON form of records, the fingerprint, and the bounded JSON Lines log.
@Suite struct LaunchRecordCodingTests {
    func sampleRecord(_ launch: String = "L1") throws -> LaunchRecord {
        let graph = try StepGraph(steps: try bootstrapGraph().steps.map { spec in
            var spec = spec
            if spec.id == "config-fetch" { spec.retry = .init(attempts: 2, backoff: .milliseconds(100)) }
            return spec
        })
        var simulation = LaunchSimulation(graph: graph, launch: launch) { id, attempt in
            id == "config-fetch" && attempt == 1 ? .fail(100, retryable: true, code: .network) : .ok(bootstrapDurations[id]!)
        }
        simulation.finish()
        return simulation.record
    }

    @Test func aRecordSurvivesItsJSONLine() throws {
        let record = try sampleRecord()
        let line = record.jsonLine()
        #expect(!line.contains(0x0A))
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains("\"started_at_unix_ms\":1714555800000"))
        #expect(text.contains("\"dismissing_at_ms\":"))
        #expect(text.contains("\"start_ms\":"))
        #expect(!text.contains("\"code\":null") && !text.contains("skipped_at_ms"), "absent values are left out")
        #expect(try LaunchRecord(jsonLine: line) == record)
        #expect(record.jsonValue.objectValue?["launch"] == .string("L1"))
    }

    @Test func decodingIgnoresUnknownKeysAndDefaultsMissingLists() throws {
        let text = #"{"launch":"old","future_field":{"x":1},"steps":[{"id":"a","attempts":[{"attempt":1,"start_ms":5,"end_ms":9,"outcome":"succeeded","extra":true}]}]}"#
        let record = try LaunchRecord(jsonLine: Array(text.utf8))
        #expect(record.launch == "old")
        #expect(record.phases.isEmpty)
        #expect(record.steps.first?.critical == true)
        #expect(record.steps.first?.status == .pending)
        #expect(record.steps.first?.durationMs == 4)
    }

    @Test(arguments: [
        "", "{", "[]", "null", #"{"steps":[]}"#, #"{"launch":"x","steps":[{"id":"a","attempts":[{"attempt":1,"start_ms":0,"outcome":"exploded"}]}]}"#,
    ])
    func malformedRecordsAreErrors(_ text: String) {
        #expect(throws: LaunchRecord.DecodingFailure.self) { try LaunchRecord(jsonLine: Array(text.utf8)) }
    }

    @Test func theFingerprintIsStableAndOnlyFollowsTheShape() throws {
        let graph = try bootstrapGraph()
        // A fixed value: the same graph hashes the same in every process and on every machine.
        #expect(LaunchRecord.fingerprint(of: graph) == LaunchRecord.fingerprint(of: try bootstrapGraph()))
        #expect(LaunchRecord.fingerprint(of: graph).count == 16)
        #expect(LaunchRecord.fingerprint(of: try StepGraph(steps: [hstep("a")])) == "41e2871d3e61b04d")
        let reordered = try StepGraph(steps: graph.steps.reversed())
        #expect(LaunchRecord.fingerprint(of: reordered) == LaunchRecord.fingerprint(of: graph))
        let relabelled = try StepGraph(steps: graph.steps.map { var spec = $0; spec.label = "x"; spec.timeout = .seconds(1); return spec })
        #expect(LaunchRecord.fingerprint(of: relabelled) == LaunchRecord.fingerprint(of: graph))
        let otherPlugin = try StepGraph(steps: graph.steps.map { var spec = $0; if spec.id == "auth-refresh" { spec.plugin = "other" }; return spec })
        #expect(LaunchRecord.fingerprint(of: otherPlugin) != LaunchRecord.fingerprint(of: graph))
        let extraStep = try StepGraph(steps: graph.steps + [hstep("new")])
        #expect(LaunchRecord.fingerprint(of: extraStep) != LaunchRecord.fingerprint(of: graph))
    }

    @Test func theLogKeepsTheNewestUpToItsCapacity() throws {
        let base = try sampleRecord()
        var log = HistoryLog(records: [], capacity: 3)
        for index in 1...5 {
            var record = base
            record.launch = "L\(index)"
            log = log.appending(record)
        }
        #expect(log.records.map(\.launch) == ["L3", "L4", "L5"])
        #expect(log.last?.launch == "L5")
        // Saving the same launch again replaces it.
        var again = base
        again.launch = "L5"
        again.destination = Destination(screen: .login)
        log = log.appending(again)
        #expect(log.records.map(\.launch) == ["L3", "L4", "L5"])
        #expect(log.last?.destination?.screen == .login)
        #expect(HistoryLog.defaultCapacity == 20)
        #expect(HistoryLog(records: Array(repeating: base, count: 30)).records.count == 20)
    }

    @Test func jsonLinesRoundTripAndGarbageCostsOnlyItsLine() throws {
        let log = HistoryLog(records: [try sampleRecord("A"), try sampleRecord("B"), try sampleRecord("C")])
        let bytes = log.encoded()
        #expect(bytes.filter { $0 == 0x0A }.count == 3)
        let decoded = HistoryLog.decode(bytes)
        #expect(decoded.log == log)
        #expect(decoded.malformedLines == 0)

        // Garbage in the middle, a blank line, and a torn last line.
        let lines = bytes.split(separator: 0x0A).map(Array.init)
        // In steps: as one expression Swift 6.2 cannot type-check it in reasonable time.
        var damaged: [UInt8] = lines[0] + [0x0A]
        damaged += Array("not json at all".utf8)
        damaged += [0x0A, 0x0A]
        damaged += lines[1] + [0x0A]
        damaged += Array(lines[2].prefix(lines[2].count / 2))
        let recovered = HistoryLog.decode(damaged)
        #expect(recovered.log.records.map(\.launch) == ["A", "B"])
        #expect(recovered.malformedLines == 2)
        #expect(HistoryLog.decode([UInt8]()).log.records.isEmpty)
        #expect(HistoryLog.decode(bytes, capacity: 2).log.records.map(\.launch) == ["B", "C"])
    }

    @Test func matchingRecordsFilterByFingerprint() throws {
        var other = try sampleRecord("other")
        other.graphFingerprint = "0000000000000000"
        let log = HistoryLog(records: [try sampleRecord("mine"), other])
        #expect(log.records(matching: LaunchRecord.fingerprint(of: try bootstrapGraph())).map(\.launch) == ["mine"])
    }
}
