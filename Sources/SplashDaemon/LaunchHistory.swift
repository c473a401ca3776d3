public import SplashCore

/// What the controller remembers of launches: the running one's record, the last finished ones,
/// and their file.
///
/// Finished launches are saved one after another, in the order they finished (each save waits
/// for the one before), and `finishSaving()` waits for the last: a clean stop never loses the
/// launch that finished just before it.
public struct LaunchHistory: Sendable {
    /// The last finished launches, oldest first.
    public private(set) var log: HistoryLog
    /// The launch running now (or the last one, until the next starts).
    private var recorder: LaunchRecorder?
    private let store: HistoryStore?
    private let wallClockMs: @Sendable () -> Int64
    /// The newest save; each new one waits for it.
    private var lastSave: Task<Void, Never>?

    /// - Parameters:
    ///   - log: the history read at start.
    ///   - store: where finished launches are saved; nil keeps them in memory only.
    ///   - wallClockMs: Unix time in milliseconds, for each record's start.
    public init(log: HistoryLog = HistoryLog(), store: HistoryStore? = nil, wallClockMs: @escaping @Sendable () -> Int64 = { 0 }) {
        self.log = log
        self.store = store
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

    /// Saves the log as it is now, after every save started before.
    private mutating func save() {
        guard let store else { return }
        let snapshot = log
        let previous = lastSave
        lastSave = Task {
            await previous?.value
            await store.save(snapshot)
        }
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

    /// Returns once every save started so far has been written.
    public func finishSaving() async {
        await lastSave?.value
    }
}
