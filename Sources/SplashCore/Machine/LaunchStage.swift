public import SplashProtocol

/// Where a launch is, with exactly the data each phase has: an error exists only in `error`, the
/// decided destination only from `dismissing` on.
public enum LaunchStage: Sendable, Equatable {
    /// Steps are running (or about to).
    case loading
    /// A timeout (work goes on) or a failure (nothing runs until `retry`).
    case error(LaunchError)
    /// The exit animation, since `since`, towards the destination decided on entering it.
    case dismissing(since: Duration, destination: Destination)
    /// The splash is gone.
    case finished(Destination)

    /// The phase renderers see.
    public var phase: Phase {
        switch self {
        case .loading: .loading
        case .error: .error
        case .dismissing: .dismissing
        case .finished: .finished
        }
    }
}

/// Why a launch is in phase `error`. Soft and hard errors differ by case, not by a code string.
public enum LaunchError: Sendable, Equatable {
    /// The launch ran past `timeout`: running steps go on, and when the critical work completes
    /// the launch moves on to `dismissing` by itself. Code `timeout`.
    case timedOut(ErrorInfo)
    /// A critical step failed or was skipped for good: its attempts were stopped and nothing runs
    /// until `retry` (or `continue-offline`).
    case failed(ErrorInfo)

    /// What the `error` field of a state says.
    public var info: ErrorInfo {
        switch self {
        case .timedOut(let info), .failed(let info): info
        }
    }

    /// Whether steps keep running (the soft timeout error).
    public var letsWorkRun: Bool {
        if case .timedOut = self { true } else { false }
    }
}
