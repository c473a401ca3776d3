public import Logging
public import SplashCore

/// Why the exporter looks at the daemon's records again.
public enum ExportTrigger: Sendable, Equatable {
    /// Connected to splashd (at start, and after it restarted).
    case connected
    /// A launch reached `finished`.
    case finished
    /// The back-off after a failed export passed.
    case retry
    case stop
}

/// What one export to the collector came to.
public enum ExportOutcome: Sendable, Equatable {
    /// The collector confirmed every span.
    case delivered(spans: Int)
    case failed(String)
}

/// What the exporter's loop reads from, sends to and keeps: splashd's socket, the collector and
/// the cursor's file. splashd-otel's are real; the loop itself does no I/O.
public protocol ExportPeers: Sendable {
    /// The daemon's launch records, oldest first, and its version; throws while it does not answer.
    func records() async throws -> (records: [LaunchRecord], version: String)
    /// Sends `traces` (with their measurements) to the collector.
    func export(_ traces: [LaunchTrace]) async -> ExportOutcome
    /// Keeps the cursor (splashd-otel: atomically, in its state directory).
    func save(_ cursor: ExportCursor)
}

/// splashd-otel's loop: at each trigger it reads the daemon's records and exports the finished
/// launches the cursor has not seen; the cursor moves only once the collector confirmed them. A
/// failed export is tried again after a back-off (1 s, doubling up to 5 min), and costs a warning
/// at most once a minute.
public struct ExportLoop<Peers: ExportPeers, C: Clock>: Sendable where C.Duration == Duration {
    /// The first back-off after a failed export.
    public static var firstBackoff: Duration { .seconds(1) }
    /// The longest back-off.
    public static var lastBackoff: Duration { .seconds(300) }
    /// The least time between two warnings about failed exports.
    public static var quietPeriod: Duration { .seconds(60) }

    private let peers: Peers
    private let clock: C
    private let logger: Logger
    /// The launches exported so far.
    public private(set) var cursor: ExportCursor
    /// The wait before the next try, after a failed export.
    public private(set) var backoff = Self.firstBackoff
    private var lastWarning: C.Instant?

    public init(peers: Peers, cursor: ExportCursor, clock: C, logger: Logger) {
        self.peers = peers
        self.cursor = cursor
        self.clock = clock
        self.logger = logger
    }

    /// Takes `triggers` until `.stop` or their end. After a failed export, `.retry` is yielded to
    /// `retries` (the triggers' continuation) once the back-off has passed; a newer try cancels
    /// the one scheduled.
    public mutating func run(_ triggers: AsyncStream<ExportTrigger>, retries: AsyncStream<ExportTrigger>.Continuation) async {
        var retry: Task<Void, Never>?
        defer { retry?.cancel() }
        for await trigger in triggers {
            if trigger == .stop { break }
            guard let delay = await cycle() else { continue }
            retry?.cancel()
            retry = Task { [clock] in
                try? await clock.sleep(for: delay)
                if !Task.isCancelled { retries.yield(.retry) }
            }
        }
    }

    /// One look at the daemon's records. Returns the back-off to wait before trying again when an
    /// export failed; nil when there is nothing to try again (delivered, nothing pending, or the
    /// daemon not answering: its watcher triggers again once it does).
    public mutating func cycle() async -> Duration? {
        let fetched: (records: [LaunchRecord], version: String)
        do {
            fetched = try await peers.records()
        } catch {
            return nil
        }
        let pending = cursor.pending(in: fetched.records)
        if pending.isEmpty { return nil }
        var traces: [LaunchTrace] = []
        for record in pending {
            if let trace = LaunchTrace(record: record, version: fetched.version) {
                traces.append(trace)
            } else if record.finishedAtMs != nil {
                // Marked as sent with the others: sending it again would not make it a trace.
                logger.warning(
                    "the record of launch \(record.launch.prefix(36)) starts at an instant no trace can carry (\(record.startedAtUnixMs) ms); not exported"
                )
            }
        }
        switch await peers.export(traces) {
        case .delivered(let spans):
            cursor.add(pending.map(\.launch))
            peers.save(cursor)
            let ids = pending.map { String($0.launch.prefix(8)) }.joined(separator: " ")
            logger.info("exported \(pending.count) launch(es), \(spans) spans: \(ids)")
            backoff = Self.firstBackoff
            lastWarning = nil
            return nil
        case .failed(let reason):
            // A collector that is down costs a log line at most once a minute.
            let now = clock.now
            if lastWarning.map({ $0.duration(to: now) >= Self.quietPeriod }) ?? true {
                logger.warning("cannot export \(pending.count) launch(es), trying again (for a minute: quietly): \(reason)")
                lastWarning = now
            }
            let delay = backoff
            backoff = min(backoff * 2, Self.lastBackoff)
            return delay
        }
    }
}
