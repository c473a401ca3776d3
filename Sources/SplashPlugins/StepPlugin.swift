public import Logging
public import SplashCore
public import SplashJSON

/// The work of one kind of step: built into the daemon or an external executable.
public protocol StepPlugin: Sendable {
    /// Runs one attempt of a step and returns its facts.
    ///
    /// Throw a `StepFailure` to say why it failed and whether a retry may help; any other error is
    /// taken as a failure for good. Cancellation of the calling task means the attempt was
    /// abandoned (its timeout, a hard error, shutdown): stop promptly and leave nothing running.
    func run(_ context: StepContext) async throws -> Facts
}

/// What a plugin gets for one attempt.
public struct StepContext: Sendable {
    /// The step, launch, attempt and the facts of its dependencies.
    public var run: StepRun
    /// Logs with the step's metadata (`step`, `launch`, `attempt`) already set.
    public var logger: Logger
    /// Reports progress or a message for renderers while the attempt runs.
    public var report: @Sendable (StepReport) -> Void

    public init(run: StepRun, logger: Logger, report: @escaping @Sendable (StepReport) -> Void) {
        self.run = run
        self.logger = logger
        self.report = report
    }
}

/// A progress report from a running attempt.
public enum StepReport: Sendable, Equatable {
    /// The attempt's own progress, 0...1.
    case progress(Double)
    /// A short text for renderers ("Signing in").
    case message(String)
}
