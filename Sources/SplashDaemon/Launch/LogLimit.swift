import Logging
import SplashCore
import Synchronization

/// How many lines of one kind are written to the journal in full: the first `burst` of each
/// `window`; the rest are counted and told in one line. A source that says something in a loop
/// — an app or a wake hook that resumes in a loop (500 resumes were 1,500 records), a writer
/// flooding psplash's FIFO with distinct `MSG`s (1,000,000 were 184,000 lines in 8 s), RAUC's
/// `Progress` — would otherwise make journald drop splashd's other records.
///
/// A value, told the time: `ResumeCheck` keeps one in its machine; `FoldedLog` wraps one for a
/// source that logs from another thread.
struct LogLimit {
    /// Lines logged in full in each window.
    let burst: Int
    /// How long a window lasts, from the first line logged in it.
    let window: Duration

    private var windowStart: Duration?
    private var inWindow = 0
    /// Lines not logged since the last one that was (or since the last `takeFolded`).
    private(set) var suppressed = 0

    init(burst: Int = 5, window: Duration = .seconds(60)) {
        self.burst = burst
        self.window = window
    }

    /// Whether the line at `now` is logged in full; when it is, `folded` is how many were not
    /// before it (to be told with it).
    mutating func admit(at now: Duration) -> (logged: Bool, folded: Int) {
        if let start = windowStart, now - start < window, inWindow >= burst {
            suppressed += 1
            return (false, 0)
        }
        if windowStart.map({ now - $0 >= window }) ?? true {
            windowStart = now
            inWindow = 0
        }
        inWindow += 1
        return (true, takeFolded())
    }

    /// The lines not logged since the last one that was, to be told now (an end: the update's,
    /// the source's); the count starts again at 0.
    mutating func takeFolded() -> Int {
        defer { suppressed = 0 }
        return suppressed
    }

    /// The line that tells `count` lines of `what` were not logged: "N more WHAT were not logged
    /// (more than 5 within 1m)".
    func foldedLine(_ count: Int, _ what: String) -> String {
        "\(count) more \(what) were not logged (more than \(burst) within \(DurationFormat.format(window)))"
    }
}

/// One kind of line from a source outside the controller's loop (psplash's FIFO, RAUC's watch),
/// logged within a `LogLimit`: the first few of each minute in full, then one line with how many
/// were not, told with the next line logged or at `flush`. Safe from any thread.
final class FoldedLog: Sendable {
    private let limit: Mutex<LogLimit>
    private let start = ContinuousClock.now
    private let logger: Logger
    /// The line's prefix ("psplash's FIFO: "), and the lines' name in the count line ("MSG and
    /// PROGRESS lines").
    private let prefix: String
    private let what: String

    init(logger: Logger, prefix: String, what: String, limit: LogLimit = LogLimit()) {
        self.logger = logger
        self.prefix = prefix
        self.what = what
        self.limit = Mutex(limit)
    }

    /// Logs `prefix` and `line` at `level` if it is within the limit; a line the logger's level
    /// leaves out does not count.
    func log(_ level: Logger.Level, _ line: @autoclosure () -> String) {
        guard logger.logLevel <= level else { return }
        let now = ContinuousClock.now - start
        let (logged, folded) = limit.withLock { $0.admit(at: now) }
        guard logged else { return }
        tell(folded)
        logger.log(level: level, "\(prefix)\(line())")
    }

    /// Tells how many lines were not logged since the last one that was, if any.
    func flush() {
        tell(limit.withLock { $0.takeFolded() })
    }

    private func tell(_ folded: Int) {
        guard folded > 0 else { return }
        logger.notice("\(prefix)\(limit.withLock { $0.foldedLine(folded, what) })")
    }
}
