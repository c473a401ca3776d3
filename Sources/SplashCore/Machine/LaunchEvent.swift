public import SplashJSON
public import SplashProtocol

/// Something that happened in a launch worth one log record (and, under journald, a MESSAGE_ID).
public enum LaunchEvent: Sendable, Equatable {
    case launchStarted(launch: String, reason: LaunchReason)
    case stepStarted(step: String, attempt: Int)
    case stepSucceeded(step: String, attempt: Int, duration: Duration)
    /// `retryIn` is the backoff before the next attempt, nil when the step failed for good.
    case stepFailed(step: String, attempt: Int, failure: StepFailure, duration: Duration, retryIn: Duration?)
    case stepSkipped(step: String, reason: String)
    case stepCancelled(step: String, attempt: Int)
    case phaseChanged(from: Phase, to: Phase)
    case launchFinished(launch: String, destination: Destination, elapsed: Duration)
}

/// What the owner of a `LaunchMachine` must do after feeding it an input.
public enum LaunchAction: Sendable, Equatable {
    /// A launch after the first begins: forget what clients sent for the previous one (signal
    /// completions, queued quick actions). Comes before the launch's first attempt starts.
    case resetLaunchInputs
    /// Start an attempt of a step. Report back with `stepFinished(token:...)`.
    case start(StepRun)
    /// Stop the attempt with this token (its result, if any, will be ignored).
    case cancel(step: String, token: UInt64)
    /// Log this event.
    case event(LaunchEvent)
    /// The observable state changed (`seq` grew): publish `snapshot(at:)`.
    case publish
}

/// One attempt of one step, as handed to the plugin runner.
public struct StepRun: Sendable, Equatable {
    public var step: StepSpec
    public var launch: String
    /// 1-based attempt number within this launch.
    public var attempt: Int
    /// Identifies this attempt; results carry it back.
    public var token: UInt64
    /// Facts of the step's dependencies, by step id.
    public var dependencyFacts: [String: Facts]
    /// Why the launch began: the `app-start` step restarts the app after an exit or a hang.
    public var reason: LaunchReason

    public init(
        step: StepSpec, launch: String, attempt: Int, token: UInt64, dependencyFacts: [String: Facts] = [:],
        reason: LaunchReason = .boot
    ) {
        self.step = step
        self.launch = launch
        self.reason = reason
        self.attempt = attempt
        self.token = token
        self.dependencyFacts = dependencyFacts
    }
}
