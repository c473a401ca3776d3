import Logging
import SplashCore
import SplashTelemetry
import Synchronization
import Testing
import TestSupport

/// splashd-otel's loop: what it exports, when the cursor moves, the back-off and its warnings.
@Suite struct ExportLoopTests {
    /// A daemon that has the records it is given and a collector that answers as scripted.
    final class Peers: ExportPeers {
        struct State {
            var records: [LaunchRecord] = []
            var daemonAnswers = true
            /// Each export's answer, first first; `delivered` once the script is used up.
            var answers: [Bool] = []
            var exported: [[String]] = []
            var saved: [ExportCursor] = []
        }

        let state = Mutex(State())

        func records() async throws -> (records: [LaunchRecord], version: String) {
            let (answers, records) = state.withLock { ($0.daemonAnswers, $0.records) }
            guard answers else { throw Unreachable() }
            return (records, "0.1.0")
        }

        func export(_ traces: [LaunchTrace]) async -> ExportOutcome {
            state.withLock { state in
                state.exported.append(traces.map { $0.spans[0].name })
                let delivered = state.answers.isEmpty ? true : state.answers.removeFirst()
                return delivered ? .delivered(spans: traces.reduce(0) { $0 + $1.spans.count }) : .failed("HTTP 503")
            }
        }

        func save(_ cursor: ExportCursor) { state.withLock { $0.saved.append(cursor) } }

        struct Unreachable: Error {}
    }

    static func record(_ launch: String) -> LaunchRecord {
        var record = LaunchTraceTests.record()
        record.launch = launch
        return record
    }

    @Test func exportsWhatTheCursorHasNotSeenAndMovesItOnlyOnceDelivered() async {
        let peers = Peers()
        peers.state.withLock { $0.records = [Self.record("L-1"), Self.record("L-2")] }
        let log = LogCapture()
        var loop = ExportLoop(peers: peers, cursor: ExportCursor(exported: ["L-1"]), clock: TestClock(), logger: log.logger())

        #expect(await loop.cycle() == nil)
        #expect(loop.cursor.exported == ["L-1", "L-2"])
        #expect(peers.state.withLock { $0.saved.map(\.exported) } == [["L-1", "L-2"]])
        #expect(log.records(.info, containing: "exported 1 launch(es)").count == 1)

        // Nothing new: no export, no save.
        #expect(await loop.cycle() == nil)
        #expect(peers.state.withLock { ($0.exported.count, $0.saved.count) } == (1, 1))
    }

    @Test func aDaemonThatDoesNotAnswerCostsNothing() async {
        let peers = Peers()
        peers.state.withLock { $0.daemonAnswers = false }
        let log = LogCapture()
        var loop = ExportLoop(peers: peers, cursor: ExportCursor(), clock: TestClock(), logger: log.logger())
        #expect(await loop.cycle() == nil)
        #expect(peers.state.withLock { $0.exported.isEmpty && $0.saved.isEmpty })
        #expect(log.records(atLeast: .notice).isEmpty)
    }

    @Test func failuresBackOffFromOneSecondToFiveMinutesAndWarnOnceAMinute() async {
        let peers = Peers()
        peers.state.withLock {
            $0.records = [Self.record("L-1")]
            $0.answers = Array(repeating: false, count: 12)
        }
        let log = LogCapture()
        let clock = TestClock()
        var loop = ExportLoop(peers: peers, cursor: ExportCursor(), clock: clock, logger: log.logger())

        var delays: [Duration] = []
        for _ in 0..<12 {
            delays.append(await loop.cycle() ?? .zero)
            clock.advance(by: delays.last!)
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
        // Warned at 0 s, then at the first failure a minute or more later (63 s), and so on.
        let warnings = log.records(.warning, containing: "cannot export 1 launch(es)")
        #expect(warnings.count == 7, "at 0, 63, 127, 255, 511, 811 and 1111 s")
        #expect(warnings.allSatisfy { $0.message.hasSuffix("HTTP 503") })
        #expect(peers.state.withLock { $0.saved.isEmpty }, "the cursor moves only once delivered")

        // Delivered: the cursor moves, and the next failure starts again at one second, with a warning.
        #expect(await loop.cycle() == nil)
        #expect(loop.cursor.exported == ["L-1"])
        peers.state.withLock {
            $0.records.append(Self.record("L-2"))
            $0.answers = [false]
        }
        #expect(await loop.cycle() == .seconds(1))
        #expect(log.records(.warning, containing: "cannot export").count == 8)
    }

    @Test func runTriesAgainAfterTheBackoffAndStopsOnStop() async throws {
        let peers = Peers()
        peers.state.withLock {
            $0.records = [Self.record("L-1")]
            $0.answers = [false]
        }
        let clock = TestClock()
        let (triggers, continuation) = AsyncStream.makeStream(of: ExportTrigger.self)
        let loop = Task {
            var loop = ExportLoop(peers: peers, cursor: ExportCursor(), clock: clock, logger: LogCapture().logger())
            await loop.run(triggers, retries: continuation)
            return loop.cursor
        }
        continuation.yield(.connected)
        // The failed export schedules its retry one second on; nothing is tried before. (Generous
        // bounds: the whole suite runs in parallel on two cores.)
        let bound = Duration.seconds(60)
        #expect(await waitUntil(timeout: bound) { clock.pendingDeadlines == [.seconds(1)] })
        #expect(peers.state.withLock { $0.exported.count } == 1)
        clock.advance(by: .seconds(1))
        #expect(await waitUntil(timeout: bound) { peers.state.withLock { $0.saved.count } == 1 })
        #expect(peers.state.withLock { $0.exported.count } == 2)
        continuation.yield(.stop)
        let cursor = try #require(await result(of: Task { () async throws -> ExportCursor in await loop.value }, within: bound))
        #expect(try cursor.get().exported == ["L-1"])
    }
}
