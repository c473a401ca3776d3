/// The phase of the splash screen.
///
/// | phase        | meaning                                                        | leaves to                         |
/// |--------------|----------------------------------------------------------------|-----------------------------------|
/// | `loading`    | steps are running; renderer shows logo, indicator once `slow`  | `dismissing`, `error`             |
/// | `error`      | a critical step failed for good, or `timeout` passed (soft)    | `loading` (retry), `dismissing`   |
/// | `dismissing` | critical work done and `min_display` elapsed; exit animation   | `finished`                        |
/// | `finished`   | splash gone; `destination` set                                 | `loading` (relaunch)              |
public enum Phase: String, Sendable, Codable, CaseIterable {
    case loading
    case error
    case dismissing
    case finished
}

/// The status of one step within a launch.
public enum StepStatus: String, Sendable, Codable, CaseIterable {
    case pending
    /// Running, or between two attempts (waiting out the retry backoff).
    case running
    case succeeded
    case failed
    case skipped

    /// Whether the step is done for this launch (until a retry).
    public var isTerminal: Bool { self == .succeeded || self == .failed || self == .skipped }
}
