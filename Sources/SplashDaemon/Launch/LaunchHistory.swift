public import SplashCore
import Synchronization

/// What the controller remembers of launches: the running one's record, the last finished ones,
/// and their file.
///
/// Saves are coalesced: one is written at a time, and while it is, only the newest log waits to be
/// written after it (`HistorySaver`). Each log holds every record of the ones before it, so the
/// file always ends at the newest; and a flood of mode changes (an updater's `MSG`/`QUIT` in a
/// loop: 20,000 saves queued, 180 MB and over a minute of fsyncs after it) costs one write at a
/// time and one log in memory. `finishSaving()` waits for the last: a clean stop never loses the
/// launch that finished just before it.
public struct LaunchHistory: Sendable {
    /// The last finished launches, oldest first.
    public private(set) var log: HistoryLog
    /// The launch running now (or the last one, until the next starts).
    private var recorder: LaunchRecorder?
    private let saver: HistorySaver?
    private let wallClockMs: @Sendable () -> Int64

    /// - Parameters:
    ///   - log: the history read at start.
    ///   - store: where finished launches are saved; nil keeps them in memory only.
    ///   - wallClockMs: Unix time in milliseconds, for each record's start.
    public init(log: HistoryLog = HistoryLog(), store: HistoryStore? = nil, wallClockMs: @escaping @Sendable () -> Int64 = { 0 }) {
        self.log = log
        self.saver = store.map(HistorySaver.init)
        self.wallClockMs = wallClockMs
    }

    /// The last finished launch, or before any the one running now: what reports describe.
    public var latest: LaunchRecord? { log.last ?? recorder?.record }

    /// Progress estimates for `graph` from the launches recorded so far.
    public func estimator(for graph: StepGraph) -> ProgressEstimator {
        ProgressEstimator(history: log.records, graph: graph)
    }

    /// Feeds an event of `machine`'s launch, `atMs` after it began; a finished launch joins the
    /// log and is saved.
    public mutating func record(_ event: LaunchEvent, of machine: LaunchMachine, atMs: Int64) {
        if case .launchStarted(let launch, let reason) = event {
            recorder = LaunchRecorder(launch: launch, reason: reason, startedAtUnixMs: wallClockMs(), graph: machine.graph, settings: machine.settings)
        }
        recorder?.apply(event, atMs: atMs)
        guard case .launchFinished = event, let record = recorder?.record else { return }
        log = log.appending(record)
        save()
    }

    /// Saves the log as it is now, after the save being written (if any).
    private func save() {
        saver?.save(log)
    }

    /// A mode's event: marked on the running launch's record, at `atMs` into it; after it
    /// finished, on its saved record (an update over the app, the shutdown), which is saved again.
    public mutating func record(_ event: ModeMachine.Event, atMs: Int64) {
        guard let mark = LaunchRecord.ModeMark(event, atMs: atMs) else { return }
        if let recorder, recorder.record.finishedAtMs == nil {
            self.recorder?.mark(mark)
            return
        }
        guard var last = log.records.last else { return }
        last.mark(mark)
        log = log.appending(last)
        save()
    }

    /// Returns once the newest log saved so far has been written.
    public func finishSaving() async {
        await saver?.finish()
    }
}

/// Writes logs to a `HistoryStore` one at a time, keeping only the newest one waiting.
final class HistorySaver: Sendable {
    private struct State {
        /// The newest log not yet handed to the store.
        var pending: HistoryLog?
        /// The task writing, while one is.
        var writer: Task<Void, Never>?
    }

    private let store: HistoryStore
    private let state = Mutex(State())

    init(store: HistoryStore) {
        self.store = store
    }

    /// Writes `log` after the write under way, in place of any log still waiting.
    func save(_ log: HistoryLog) {
        state.withLock { state in
            state.pending = log
            guard state.writer == nil else { return }
            state.writer = Task { await self.writeAll() }
        }
    }

    private func writeAll() async {
        while let log = state.withLock({ state -> HistoryLog? in
            guard let log = state.pending else {
                state.writer = nil
                return nil
            }
            state.pending = nil
            return log
        }) {
            await store.save(log)
        }
    }

    /// Returns once nothing waits to be written.
    func finish() async {
        while let writer = state.withLock({ $0.writer }) {
            await writer.value
        }
    }
}
