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

/// Why an attempt of a step failed.
public struct StepFailure: Sendable, Equatable, Error {
    /// Machine-readable cause; `network` and `timeout` have renderer-facing messages.
    public var code: ErrorCode
    /// Human-readable detail (for logs and the error screen).
    public var message: String
    /// Whether another attempt may help (exit 75, a timeout, a network failure).
    public var retryable: Bool

    public init(code: ErrorCode, message: String, retryable: Bool) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }

    /// A network failure: "Unable to connect", retryable.
    public static func network(_ detail: String) -> StepFailure {
        StepFailure(code: .network, message: "Unable to connect: \(detail)", retryable: true)
    }

    /// The attempt ran past the step's timeout.
    public static func attemptTimedOut(after limit: Duration) -> StepFailure {
        StepFailure(
            code: .stepTimeout,
            message: "no result within \(DurationFormat.format(limit))",
            retryable: true
        )
    }
}
