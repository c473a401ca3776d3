import SplashCore
import SplashProtocol
import SplashTelemetry
import Testing

/// A launch record becomes design §12's trace with the record's own instants, and nothing else.
@Suite struct LaunchTraceTests {
    /// Started at 1,700,000,000,000 ms; `fetch` failed once, the user retried, then it worked.
    static func record(finished: Bool = true) -> LaunchRecord {
        var record = LaunchRecord(
            launch: "L-1", startedAtUnixMs: 1_700_000_000_000, graphFingerprint: "f00d", minDisplayMs: 1000,
            phases: [
                .init(phase: .loading, atMs: 0), .init(phase: .error, atMs: 1500, code: "network", step: "fetch"),
                .init(phase: .loading, atMs: 4000), .init(phase: .dismissing, atMs: 4600),
            ],
            dismissingAtMs: 4600, finishedAtMs: finished ? 4900 : nil,
            destination: finished ? Destination(screen: .login, route: "orders/42") : nil,
            steps: [
                StepRecord(
                    id: "fetch", plugin: "config-fetch", status: .succeeded,
                    attempts: [
                        .init(attempt: 1, startMs: 5, endMs: 1500, outcome: .failed, code: "network", reason: "Unable to connect"),
                        .init(attempt: 2, startMs: 4000, endMs: 4550, outcome: .succeeded),
                    ]),
                StepRecord(id: "links", plugin: "quick-action", critical: false, status: .succeeded, attempts: [.init(attempt: 1, startMs: 2, endMs: 3, outcome: .succeeded)]),
                StepRecord(id: "gpu", plugin: "wait-device", critical: false, after: ["fetch"], status: .skipped, skippedAtMs: 1500, skipReason: "a dependency failed"),
                StepRecord(id: "never", plugin: "signal", status: .pending),
            ]
        )
        record.slowAfterMs = 1000
        return record
    }

    @Test func theTreeAndItsInstants() throws {
        let trace = try #require(LaunchTrace(record: Self.record(), version: "0.1.0"))
        let ms: UInt64 = 1_000_000
        let origin: UInt64 = 1_700_000_000_000 * ms
        let root = trace.spans[0]
        #expect(root.name == "splashd.launch" && root.parent == nil)
        #expect(root.startUnixNanos == origin && root.endUnixNanos == origin + 4900 * ms)
        #expect(root.attributes["splashd.launch.id"] == .string("L-1"))
        #expect(root.attributes["splashd.launch.reason"] == .string("boot"), "a record without a reason (before 0.2) was a boot")
        var hung = Self.record()
        hung.reason = .appHung
        #expect(LaunchTrace(record: hung, version: "0.1.0")?.spans[0].attributes["splashd.launch.reason"] == .string("app-hung"))
        #expect(root.attributes["splashd.launch.outcome"] == .string("finished-after-error"))
        #expect(root.attributes["splashd.destination.screen"] == .string("login"))
        #expect(root.attributes["splashd.launch.slow"] == .bool(true), "1.5 s of loading against slow_after 1 s")
        #expect(root.attributes["splashd.launch.retries"] == .int(1))
        #expect(root.attributes["splashd.launch.error.code"] == .string("network"))
        #expect(root.attributes["splashd.graph.fingerprint"] == .string("f00d") && root.attributes["splashd.version"] == .string("0.1.0"))
        #expect(root.attributes["splashd.destination.route"] == nil, "routes are the app's data: not exported")
        #expect(root.events.map(\.unixNanos) == [0, 1500, 4000, 4600, 4900].map { origin + $0 * ms })
        #expect(root.events[1].attributes == ["splashd.phase": .string("error"), "splashd.error.code": .string("network"), "splashd.error.step": .string("fetch")])
        #expect(root.events.last?.attributes["splashd.phase"] == .string("finished"))

        let names = trace.spans.map(\.name)
        #expect(names == ["splashd.launch", "splashd.step", "splashd.step.attempt", "splashd.step.attempt", "splashd.step", "splashd.step.attempt", "splashd.step"])
        let fetch = trace.spans[1]
        #expect(fetch.parent == 0 && fetch.startUnixNanos == origin + 5 * ms && fetch.endUnixNanos == origin + 4550 * ms)
        #expect(fetch.attributes["splashd.step.attempts"] == .int(2) && fetch.error == nil)
        let failed = trace.spans[2]
        #expect(failed.parent == 1 && failed.error == "Unable to connect")
        #expect(failed.attributes["splashd.attempt.code"] == .string("network"))
        #expect(failed.startUnixNanos == origin + 5 * ms && failed.endUnixNanos == origin + 1500 * ms)
        let skipped = trace.spans[6]
        #expect(skipped.attributes["splashd.step.status"] == .string("skipped"))
        #expect(skipped.startUnixNanos == skipped.endUnixNanos && skipped.attributes["splashd.step.skip_reason"] == .string("a dependency failed"))
        #expect(!trace.spans.contains { $0.attributes["splashd.step.id"] == .string("never") }, "a step that never ran has no span")

        #expect(trace.measurements.launchMs == 4600)
        #expect(trace.measurements.stepMs.map(\.id) == ["fetch", "links"] && trace.measurements.stepMs.map(\.ms) == [4545, 1])
        #expect(trace.measurements.failures.map(\.code) == ["network"])
    }

    /// Found by the otel-records fuzz target: a record starting at 179,546,195,261,619 ms (a
    /// damaged history) overflowed 64-bit nanoseconds and trapped splashd-otel at every start.
    @Test func aRecordOutsideRealInstantsIsNoTraceAndFarOffsetsAreClamped() throws {
        var damaged = Self.record()
        damaged.startedAtUnixMs = 179_546_195_261_619
        #expect(LaunchTrace(record: damaged, version: "0.1.0") == nil)
        damaged.startedAtUnixMs = -1
        #expect(LaunchTrace(record: damaged, version: "0.1.0") == nil)
        var far = Self.record()
        far.startedAtUnixMs = LaunchTrace.latestStartUnixMs
        far.finishedAtMs = .max
        let trace = try #require(LaunchTrace(record: far, version: "0.1.0"))
        #expect(trace.spans[0].endUnixNanos == UInt64.max)
    }

    @Test func anUnfinishedLaunchIsNotATraceYet() {
        #expect(LaunchTrace(record: Self.record(finished: false), version: "0.1.0") == nil)
    }

    @Test func slowNeedsALongEnoughStretchOfLoading() {
        var record = Self.record()
        record.slowAfterMs = 2000
        #expect(!record.wasSlow, "neither 1.5 s nor 0.6 s of loading reaches 2 s")
        record.slowAfterMs = nil
        #expect(!record.wasSlow, "an older record does not know")
    }

    /// Issue 25: a launch whose work took 5 ms and that waited out min_display was "slow" in the
    /// history and the traces.
    @Test func slowNeedsCriticalWorkStillRunning() {
        var record = Self.record()
        record.slowAfterMs = 1000
        #expect(record.wasSlow, "fetch (critical) runs until 4,550 ms: past slow_after")
        record.slowAfterMs = 4600
        #expect(!record.wasSlow, "no stretch of loading lasts that long")
        for index in record.steps.indices { record.steps[index].critical = false }
        record.slowAfterMs = 1000
        #expect(!record.wasSlow, "only non-critical work, or min_display, was left")
    }

    @Test func theRecordKeepsSlowAfterAndReadsOlderOnes() throws {
        let line = Self.record().jsonLine()
        #expect(String(decoding: line, as: UTF8.self).contains("\"slow_after_ms\":1000"))
        #expect(try LaunchRecord(jsonLine: line).slowAfterMs == 1000)
        let older = try LaunchRecord(jsonLine: Array(#"{"launch":"L-0","started_at_unix_ms":1}"#.utf8))
        #expect(older.slowAfterMs == nil)
    }
}

@Suite struct ExportCursorTests {
    @Test func roundTripAndPending() throws {
        var cursor = ExportCursor()
        cursor.add(["a", "b", "a"])
        #expect(cursor.exported == ["a", "b"])
        let read = try ExportCursor(bytes: cursor.encoded())
        #expect(read == cursor && read.contains("b") && !read.contains("c"))
        var unfinished = LaunchTraceTests.record(finished: false)
        unfinished.launch = "c"
        var done = LaunchTraceTests.record()
        done.launch = "d"
        var old = LaunchTraceTests.record()
        old.launch = "a"
        #expect(read.pending(in: [old, unfinished, done]).map(\.launch) == ["d"])
    }

    @Test func itKeepsTheNewestIDsOnly() {
        var cursor = ExportCursor()
        cursor.add((0..<(ExportCursor.capacity + 10)).map { "L\($0)" })
        #expect(cursor.exported.count == ExportCursor.capacity)
        #expect(!cursor.contains("L0") && !cursor.contains("L9") && cursor.contains("L10") && cursor.contains("L\(ExportCursor.capacity + 9)"))
    }

    @Test(arguments: ["", "[]", #"{"exported":"a"}"#, #"{"exported":[1]}"#, "{\"exported\":[\"a\""])
    func aBrokenFileIsAnError(text: String) {
        #expect(throws: ExportCursor.ReadError.self) { try ExportCursor(bytes: Array(text.utf8)) }
    }
}

@Suite struct DeviceIDTests {
    @Test func stableAndNotTheMachineID() {
        let machineID = "0123456789abcdef0123456789abcdef"
        let id = DeviceID.derive(fromMachineID: Array((machineID + "\n").utf8))
        #expect(id == DeviceID.derive(fromMachineID: Array(machineID.utf8)), "the trailing newline does not count")
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit) && id != machineID)
        #expect(id != DeviceID.derive(fromMachineID: Array("0123456789abcdef0123456789abcdee".utf8)))
    }
}

extension LaunchTraceTests {
    @Test func theModesAreEventsOnTheLaunchsSpan() throws {
        var record = Self.record()
        record.mark(.init(mode: .update, atMs: 100, source: .rauc))
        record.mark(.init(mode: .update, atMs: 2100, source: .rauc, result: .failed))
        record.mark(.init(mode: .launch, atMs: 3000))
        let trace = try #require(LaunchTrace(record: record, version: "0.1.0"))
        let root = trace.spans[0]
        let modes = root.events.filter { $0.name == "splashd.mode" }
        let ms: UInt64 = 1_000_000
        #expect(modes.map(\.unixNanos) == [100, 2100, 3000].map { 1_700_000_000_000 * ms + $0 * ms })
        #expect(modes[1].attributes == ["splashd.mode": .string("update"), "splashd.update.source": .string("rauc"),
                                        "splashd.update.result": .string("failed")])
        #expect(root.attributes["splashd.launch.held_by_update"] == .bool(true))
        #expect(try #require(LaunchTrace(record: Self.record(), version: "0.1.0")).spans[0].attributes["splashd.launch.held_by_update"] == nil)
    }
}
