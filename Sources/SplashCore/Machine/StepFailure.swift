public import SplashProtocol

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
