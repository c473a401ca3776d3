public import SplashProtocol

/// Builds the `LaunchRecord` of the running launch from what the daemon sees.
///
/// Feed it every `LaunchEvent` with its instant (`apply(_:atMs:)`), or call the individual
/// methods. Instants are milliseconds since the launch began. Unknown step ids are ignored, so a
/// stray event never breaks the record. The record stays bounded: a step keeps its first attempt
/// and the latest ones up to `maxAttemptsPerStep`, the phase list its first mark and the latest
/// ones up to `maxPhaseMarks` (a user pressing retry forever cannot grow it without limit).
public struct LaunchRecorder: Sendable {
    /// Attempts kept per step.
    public static let maxAttemptsPerStep = 32
    /// Phase marks kept per launch.
    public static let maxPhaseMarks = 64

    /// The record so far.
    public private(set) var record: LaunchRecord
    private let indexByID: [String: Int]

    public init(launch: String, reason: LaunchReason = .boot, startedAtUnixMs: Int64, graph: StepGraph, settings: SplashSettings) {
        var indexByID: [String: Int] = [:]
        for (index, step) in graph.steps.enumerated() { indexByID[step.id] = index }
        self.indexByID = indexByID
        record = LaunchRecord(
            launch: launch,
            reason: reason,
            startedAtUnixMs: startedAtUnixMs,
            graphFingerprint: LaunchRecord.fingerprint(of: graph),
            minDisplayMs: settings.minDisplay.milliseconds,
            steps: graph.steps.map { spec in
                StepRecord(id: spec.id, plugin: spec.plugin, critical: spec.critical, after: spec.after, label: spec.label)
            }
        )
        record.slowAfterMs = settings.slowAfter.milliseconds
    }

    /// A mode beside the launch changed (`LaunchRecord.ModeMark`).
    public mutating func mark(_ mark: LaunchRecord.ModeMark) {
        record.mark(mark)
    }

    /// Attempt `attempt` of `step` started.
    public mutating func attemptStarted(step: String, attempt: Int, atMs: Int64) {
        guard let index = indexByID[step] else { return }
        record.steps[index].status = .running
        record.steps[index].skippedAtMs = nil
        record.steps[index].skipReason = nil
        record.steps[index].attempts.append(StepRecord.Attempt(attempt: attempt, startMs: atMs))
        let count = record.steps[index].attempts.count
        if count > Self.maxAttemptsPerStep { record.steps[index].attempts.remove(at: 1) }
    }

    /// Attempt `attempt` of `step` ended with `outcome`.
    ///
    /// The step's status follows: `succeeded`; `failed` (a later `attemptStarted` makes it
    /// `running` again); `cancelled` puts it back to `pending`. `willRetry` keeps a failed step
    /// `running` while it waits out the backoff.
    public mutating func attemptEnded(
        step: String,
        attempt: Int,
        atMs: Int64,
        outcome: StepRecord.Outcome,
        code: String? = nil,
        reason: String? = nil,
        willRetry: Bool = false
    ) {
        guard let index = indexByID[step] else { return }
        let slot = record.steps[index].attempts.lastIndex { $0.attempt == attempt && $0.endMs == nil }
        if let slot {
            record.steps[index].attempts[slot].endMs = atMs
            record.steps[index].attempts[slot].outcome = outcome
            record.steps[index].attempts[slot].code = code
            record.steps[index].attempts[slot].reason = reason
        } else {
            // The start was not seen: keep the end as a zero-length attempt rather than lose it.
            record.steps[index].attempts.append(
                StepRecord.Attempt(attempt: attempt, startMs: atMs, endMs: atMs, outcome: outcome, code: code, reason: reason)
            )
        }
        switch outcome {
        case .succeeded: record.steps[index].status = .succeeded
        case .failed: record.steps[index].status = willRetry ? .running : .failed
        case .cancelled: record.steps[index].status = .pending
        }
    }

    /// `step` was skipped (a dependency failed or the user continued offline).
    public mutating func stepSkipped(step: String, atMs: Int64, reason: String?) {
        guard let index = indexByID[step] else { return }
        record.steps[index].status = .skipped
        record.steps[index].skippedAtMs = atMs
        record.steps[index].skipReason = reason
    }

    /// The launch entered `phase`. For `error`, pass the code and step if known; otherwise they are
    /// inferred from the steps (a critical step failed or skipped for good, else `timeout`).
    public mutating func phaseChanged(to phase: Phase, atMs: Int64, code: String? = nil, step: String? = nil) {
        var mark = LaunchRecord.PhaseMark(phase: phase, atMs: atMs, code: code, step: step)
        switch phase {
        case .loading:
            break
        case .error:
            if code == nil { (mark.code, mark.step) = inferredError() }
        case .dismissing:
            record.dismissingAtMs = atMs
            closeOpenWork(atMs: atMs, reason: "continued offline")
        case .finished:
            record.finishedAtMs = atMs
        }
        if record.phases.last?.phase != phase || record.phases.isEmpty { record.phases.append(mark) }
        if record.phases.count > Self.maxPhaseMarks { record.phases.remove(at: 1) }
    }

    /// The launch finished and the app goes to `destination`.
    public mutating func finished(destination: Destination, atMs: Int64) {
        if record.phases.last?.phase != .finished { phaseChanged(to: .finished, atMs: atMs) }
        record.destination = destination
        record.finishedAtMs = atMs
    }

    /// Records one `LaunchEvent` that happened `atMs` after the launch began.
    public mutating func apply(_ event: LaunchEvent, atMs: Int64) {
        switch event {
        case .launchStarted:
            break
        case .stepStarted(let step, let attempt):
            attemptStarted(step: step, attempt: attempt, atMs: atMs)
        case .stepSucceeded(let step, let attempt, _):
            attemptEnded(step: step, attempt: attempt, atMs: atMs, outcome: .succeeded)
        case .stepFailed(let step, let attempt, let failure, _, let retryIn):
            attemptEnded(
                step: step, attempt: attempt, atMs: atMs, outcome: .failed,
                code: failure.code.rawValue, reason: failure.message, willRetry: retryIn != nil
            )
        case .stepSkipped(let step, let reason):
            stepSkipped(step: step, atMs: atMs, reason: reason)
        case .stepCancelled(let step, let attempt):
            attemptEnded(step: step, attempt: attempt, atMs: atMs, outcome: .cancelled)
        case .phaseChanged(_, let to):
            phaseChanged(to: to, atMs: atMs)
        case .launchFinished(_, let destination, _):
            finished(destination: destination, atMs: atMs)
        }
    }

    /// At `dismissing` every step is done; what is not was stopped by continue-offline.
    private mutating func closeOpenWork(atMs: Int64, reason: String) {
        for index in record.steps.indices {
            for slot in record.steps[index].attempts.indices where record.steps[index].attempts[slot].endMs == nil {
                record.steps[index].attempts[slot].endMs = atMs
                record.steps[index].attempts[slot].outcome = .cancelled
            }
            let status = record.steps[index].status
            if status == .pending || status == .running || (status == .failed && record.steps[index].critical) {
                record.steps[index].status = .skipped
                record.steps[index].skippedAtMs = record.steps[index].skippedAtMs ?? atMs
                record.steps[index].skipReason = record.steps[index].skipReason ?? reason
            }
        }
    }

    private func inferredError() -> (code: String, step: String?) {
        if let failed = record.steps.first(where: { $0.critical && $0.status == .failed }) {
            let code = failed.attempts.last?.code
            return (code == ErrorCode.network.rawValue ? ErrorCode.network.rawValue : ErrorCode.stepFailed.rawValue, failed.id)
        }
        if let skipped = record.steps.first(where: { $0.critical && $0.status == .skipped }) {
            return (ErrorCode.stepSkipped.rawValue, skipped.id)
        }
        let holdingUp = record.steps.first { $0.critical && $0.status == .running } ?? record.steps.first { !$0.status.isTerminal }
        return (ErrorCode.timeout.rawValue, holdingUp?.id)
    }
}
