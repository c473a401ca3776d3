/// The launch state machine: which steps run, which phase the splash is in, and when it moves on.
///
/// A value type with no I/O and no clock of its own. Its owner feeds it inputs — a step's result,
/// a user command, the passing of time via `advance(to:)` — each with the instant it happened
/// (a `Duration` since an arbitrary origin), and carries out the `LaunchAction`s it returns:
/// start or cancel a step attempt, log an event, publish the new `snapshot(at:)`. The owner sleeps
/// until `nextDeadline` and then calls `advance(to:)`, so every timed transition (`slow_after`,
/// `timeout`, `min_display`, `exit_animation`, a step's timeout, a retry backoff) happens at its
/// exact instant, never on a polling tick.
///
/// Rules (see `Phase` for the table):
/// - A step starts as soon as all its dependencies succeeded; a step with a failed or skipped
///   dependency is skipped.
/// - A failed attempt is retried after the backoff when the failure is retryable and the round has
///   tries left (`retry.attempts` counts the first try; the backoff doubles).
/// - `loading → dismissing` at the later of: the last step finishing (critical ones succeeded), and
///   `min_display` after the launch began.
/// - A critical step failing (or being skipped) for good → hard `error`: running attempts are
///   cancelled and nothing runs until `retry`.
/// - `timeout` in `loading` → soft `error` (code `timeout`): work goes on, and when it completes
///   the phase moves on to `dismissing` by itself.
/// - `retry` re-runs every step that has not succeeded; `continue-offline` (when allowed) marks
///   them skipped and dismisses with the facts there are.
/// - `dismissing → finished` on `dismissed` or after `exit_animation`; `relaunch` starts anew.
public struct LaunchMachine: Sendable {
    /// A user command that changes the phase.
    public enum Command: Sendable, Equatable {
        case retry
        case continueOffline
        case dismissed
        /// Start a new launch with this id.
        case relaunch(launch: String)

        /// The command's name on the wire.
        public var name: String {
            switch self {
            case .retry: "retry"
            case .continueOffline: "continue-offline"
            case .dismissed: "dismissed"
            case .relaunch: "relaunch"
            }
        }
    }

    /// A command that is not possible in the current phase; nothing changed.
    public struct Refusal: Error, Equatable, Sendable {
        /// Always `invalid-transition`.
        public var code: String { "invalid-transition" }
        public var message: String
    }

    /// The runtime state of one step in the current launch.
    public struct StepState: Sendable, Equatable {
        public internal(set) var status: StepStatus = .pending
        /// Attempts made in this launch (across retry rounds).
        public internal(set) var attempt = 0
        /// `attempt` when the current round began (a user `retry` starts a new round).
        var roundBase = 0
        var token: UInt64 = 0
        /// When the first attempt of the current round started.
        public internal(set) var startedAt: Duration?
        public internal(set) var endedAt: Duration?
        var attemptDeadline: Duration?
        /// Set while waiting out the backoff before the next attempt.
        public internal(set) var retryAt: Duration?
        public internal(set) var facts: Facts = [:]
        /// The plugin's own progress report for the current attempt, 0...1.
        public internal(set) var fraction: Double = 0
        public internal(set) var message: String?
        public internal(set) var failure: StepFailure?
        public internal(set) var skipReason: String?
    }

    public let graph: StepGraph
    public let settings: SplashSettings
    /// Relative weight of each step (by index) in `progress`; equal by default.
    public var weights: [Double]
    /// Expected step durations from past launches: when it has history, progress tracks time and
    /// `eta` is set; without, every step weighs the same.
    public var estimator: ProgressEstimator?
    /// The expected time until `dismissing`, from the estimator.
    public private(set) var eta: Duration?
    /// When set, a state is published at least this often while steps run, so a progress bar
    /// moves smoothly and `elapsed_ms` / `duration_ms` stay fresh.
    public var tickInterval: Duration?

    public private(set) var launch = ""
    public private(set) var phase = Phase.loading
    /// Grows by one with every observable change.
    public private(set) var seq: UInt64 = 0
    public private(set) var steps: [StepState]
    public private(set) var slow = false
    public private(set) var progress: Double = 0
    public private(set) var error: ErrorInfo?
    /// Set when the launch reaches `finished`.
    public private(set) var destination: Destination?
    public private(set) var launchStartedAt: Duration = .zero
    /// When the current `loading` period began (the launch start, or the last `retry`).
    public private(set) var loadingSince: Duration = .zero
    public private(set) var dismissingSince: Duration?

    private var timedOut = false
    private var decided: Destination?
    private var nextToken: UInt64 = 0
    private var dirty = false
    private var lastPublishAt: Duration = .zero
    private var actions: [LaunchAction] = []

    /// - Parameter seq: where `seq` continues from (a reloaded graph keeps counting).
    public init(graph: StepGraph, settings: SplashSettings, seq: UInt64 = 0) {
        self.graph = graph
        self.settings = settings
        self.seq = seq
        self.steps = Array(repeating: StepState(), count: graph.steps.count)
        self.weights = Array(repeating: 1, count: graph.steps.count)
    }

    // MARK: Inputs

    /// Begins a launch with id `launch` at `now`.
    public mutating func start(launch: String, at now: Duration) -> [LaunchAction] {
        self.launch = launch
        steps = Array(repeating: StepState(), count: graph.steps.count)
        launchStartedAt = now
        loadingSince = now
        dismissingSince = nil
        slow = false
        timedOut = false
        progress = 0
        eta = nil
        error = nil
        destination = nil
        decided = nil
        let previous = phase
        phase = .loading
        emit(.event(.launchStarted(launch: launch)))
        if previous != .loading { emit(.event(.phaseChanged(from: previous, to: .loading))) }
        dirty = true
        settle(at: now)
        return drain(at: now)
    }

    /// The attempt with `token` ended. Results of cancelled or stale attempts are ignored.
    public mutating func stepFinished(
        token: UInt64,
        result: Result<Facts, StepFailure>,
        at now: Duration
    ) -> [LaunchAction] {
        guard let index = runningIndex(token: token) else { return [] }
        switch result {
        case .success(let facts):
            steps[index].status = .succeeded
            steps[index].facts = facts
            steps[index].fraction = 1
            steps[index].endedAt = now
            steps[index].attemptDeadline = nil
            steps[index].failure = nil
            emit(
                .event(
                    .stepSucceeded(
                        step: graph.steps[index].id,
                        attempt: steps[index].attempt,
                        duration: now - (steps[index].startedAt ?? now)
                    )
                )
            )
            dirty = true
        case .failure(let failure):
            attemptFailed(index, failure, at: now, cancel: false)
        }
        settle(at: now)
        return drain(at: now)
    }

    /// The attempt with `token` reported progress (`fraction` in 0...1) or a message.
    public mutating func stepReported(
        token: UInt64,
        fraction: Double? = nil,
        message: String? = nil,
        at now: Duration
    ) -> [LaunchAction] {
        guard let index = runningIndex(token: token) else { return [] }
        if let fraction, fraction.isFinite {
            let clamped = min(1, max(0, fraction))
            if clamped != steps[index].fraction {
                steps[index].fraction = clamped
                dirty = true
            }
        }
        if let message, message != steps[index].message {
            steps[index].message = message
            dirty = true
        }
        return drain(at: now)
    }

    /// Time passed: carries out every timed transition due up to `now`, each at its own instant.
    public mutating func advance(to now: Duration) -> [LaunchAction] {
        while let deadline = nextDeadline, deadline <= now {
            fire(at: deadline)
            settle(at: deadline)
        }
        return drain(at: now)
    }

    /// Applies a user command, or refuses it (nothing changes) when the phase does not allow it.
    public mutating func apply(_ command: Command, at now: Duration) throws(Refusal) -> [LaunchAction] {
        switch command {
        case .retry:
            guard phase == .error else { throw Refusal(message: "retry is only possible in phase error") }
            restartRound(at: now)
        case .continueOffline:
            guard phase == .error else {
                throw Refusal(message: "continue-offline is only possible in phase error")
            }
            guard settings.allowOffline else {
                throw Refusal(message: "continue-offline is not allowed here (allow_offline = false)")
            }
            continueOffline(at: now)
        case .dismissed:
            guard phase == .dismissing else {
                throw Refusal(message: "dismissed is only possible in phase dismissing")
            }
            enterFinished(at: now)
        case .relaunch(let launch):
            guard phase == .finished else {
                throw Refusal(message: "relaunch is only possible in phase finished")
            }
            return start(launch: launch, at: now)
        }
        return drain(at: now)
    }

    // MARK: Time

    /// The next instant at which something happens by itself, if any.
    public var nextDeadline: Duration? {
        var next: Duration?
        func consider(_ instant: Duration) { next = min(next ?? instant, instant) }
        if workMayRun {
            for state in steps where state.status == .running {
                if let retryAt = state.retryAt { consider(retryAt) } else if let d = state.attemptDeadline { consider(d) }
            }
            if isWorkComplete { consider(launchStartedAt + settings.minDisplay) }
        }
        if let tickInterval, phase == .loading, wantsTicks { consider(lastPublishAt + tickInterval) }
        if phase == .loading {
            if !slow { consider(loadingSince + settings.slowAfter) }
            if !timedOut { consider(loadingSince + settings.timeout) }
        }
        if phase == .dismissing, let since = dismissingSince { consider(since + settings.exitAnimation) }
        return next
    }

    // MARK: Internals

    /// Steps run in `loading` and during the soft timeout error.
    private var workMayRun: Bool { phase == .loading || (phase == .error && error?.isSoft == true) }

    /// Every step finished, critical ones succeeded.
    private var isWorkComplete: Bool {
        for (index, state) in steps.enumerated() {
            guard state.status.isTerminal else { return false }
            if graph.steps[index].critical && state.status != .succeeded { return false }
        }
        return true
    }

    private func runningIndex(token: UInt64) -> Int? {
        steps.firstIndex { $0.token == token && $0.status == .running && $0.retryAt == nil }
    }

    private mutating func emit(_ action: LaunchAction) { actions.append(action) }

    private mutating func drain(at now: Duration) -> [LaunchAction] {
        if dirty {
            lastPublishAt = now
            updateProgress(at: now)
            seq += 1
            actions.append(.publish)
            dirty = false
        }
        defer { actions = [] }
        return actions
    }

    private var hasUnfinishedWork: Bool { steps.contains { !$0.status.isTerminal } }

    /// Ticks keep a bar moving while loading: while steps run, and, when progress tracks time
    /// (history), while the launch waits out `min_display`. None in `error`: no bar is shown.
    private var wantsTicks: Bool { hasUnfinishedWork || estimator?.hasHistory == true }

    private mutating func fire(at now: Duration) {
        if let tickInterval, phase == .loading, wantsTicks, now >= lastPublishAt + tickInterval {
            lastPublishAt = now
            dirty = true
        }
        for index in steps.indices where steps[index].status == .running {
            if let retryAt = steps[index].retryAt {
                if retryAt <= now && workMayRun { beginAttempt(index, at: now) }
            } else if let deadline = steps[index].attemptDeadline, deadline <= now {
                attemptFailed(index, .attemptTimedOut(after: graph.steps[index].timeout), at: now, cancel: true)
            }
        }
        if phase == .loading && !slow && now >= loadingSince + settings.slowAfter {
            slow = true
            dirty = true
        }
        if phase == .loading && !timedOut && now >= loadingSince + settings.timeout {
            timedOut = true
            let holdingUp = graph.order.first { steps[$0].status == .running && graph.steps[$0].critical }
                ?? graph.order.first { !steps[$0].status.isTerminal }
            error = ErrorInfo(
                code: ErrorInfo.Code.timeout,
                message: "This is taking longer than expected",
                step: holdingUp.map { graph.steps[$0].id },
                actions: offeredActions
            )
            setPhase(.error)
        }
        if phase == .dismissing, let since = dismissingSince, now >= since + settings.exitAnimation {
            enterFinished(at: now)
        }
    }

    /// Brings the graph up to date after any input: skips, a hard error, new attempts, dismissing.
    private mutating func settle(at now: Duration) {
        for index in graph.order where steps[index].status == .pending {
            let blocker = graph.dependencies[index].first {
                steps[$0].status == .failed || steps[$0].status == .skipped
            }
            if let blocker {
                let reason = "\(graph.steps[blocker].id) \(steps[blocker].status.rawValue)"
                steps[index].status = .skipped
                steps[index].skipReason = reason
                steps[index].endedAt = now
                emit(.event(.stepSkipped(step: graph.steps[index].id, reason: reason)))
                dirty = true
            }
        }
        guard workMayRun else { return }
        if let broken = graph.order.first(where: {
            graph.steps[$0].critical && (steps[$0].status == .failed || steps[$0].status == .skipped)
        }) {
            enterHardError(causedBy: broken, at: now)
            return
        }
        for index in graph.order where steps[index].status == .pending {
            if graph.dependencies[index].allSatisfy({ steps[$0].status == .succeeded }) {
                beginAttempt(index, at: now)
            }
        }
        if isWorkComplete && now >= launchStartedAt + settings.minDisplay {
            enterDismissing(at: now)
        }
    }

    private mutating func beginAttempt(_ index: Int, at now: Duration) {
        let spec = graph.steps[index]
        nextToken += 1
        steps[index].status = .running
        steps[index].attempt += 1
        steps[index].token = nextToken
        steps[index].retryAt = nil
        steps[index].attemptDeadline = now + spec.timeout
        steps[index].fraction = 0
        steps[index].message = nil
        if steps[index].startedAt == nil { steps[index].startedAt = now }
        var dependencyFacts: [String: Facts] = [:]
        for dep in graph.dependencies[index] { dependencyFacts[graph.steps[dep].id] = steps[dep].facts }
        let run = StepRun(
            step: spec,
            launch: launch,
            attempt: steps[index].attempt,
            token: nextToken,
            dependencyFacts: dependencyFacts
        )
        emit(.start(run))
        emit(.event(.stepStarted(step: spec.id, attempt: steps[index].attempt)))
        dirty = true
    }

    private mutating func attemptFailed(_ index: Int, _ failure: StepFailure, at now: Duration, cancel: Bool) {
        let spec = graph.steps[index]
        if cancel { emit(.cancel(step: spec.id, token: steps[index].token)) }
        let tries = steps[index].attempt - steps[index].roundBase
        let duration = now - (steps[index].startedAt ?? now)
        steps[index].failure = failure
        steps[index].attemptDeadline = nil
        var retryIn: Duration?
        if failure.retryable && tries < spec.retry.attempts {
            let wait = spec.retry.backoff(afterAttempt: tries)
            steps[index].retryAt = now + wait
            retryIn = wait
        } else {
            steps[index].status = .failed
            steps[index].endedAt = now
        }
        emit(
            .event(
                .stepFailed(
                    step: spec.id, attempt: steps[index].attempt, failure: failure, duration: duration, retryIn: retryIn
                )
            )
        )
        dirty = true
    }

    /// Stops every running attempt; each such step goes back to `pending` (or `skipped`).
    private mutating func stopRunning(markSkipped reason: String?, at now: Duration) {
        for index in steps.indices where steps[index].status == .running {
            if steps[index].retryAt == nil {
                emit(.cancel(step: graph.steps[index].id, token: steps[index].token))
                emit(.event(.stepCancelled(step: graph.steps[index].id, attempt: steps[index].attempt)))
            }
            steps[index].retryAt = nil
            steps[index].attemptDeadline = nil
            if let reason {
                steps[index].status = .skipped
                steps[index].skipReason = reason
                steps[index].endedAt = now
            } else {
                steps[index].status = .pending
            }
            dirty = true
        }
    }

    private var offeredActions: [ErrorInfo.UserAction] {
        settings.allowOffline ? [.retry, .continueOffline] : [.retry]
    }

    private mutating func enterHardError(causedBy index: Int, at now: Duration) {
        stopRunning(markSkipped: nil, at: now)
        let spec = graph.steps[index]
        let state = steps[index]
        let label = spec.label ?? spec.id
        if state.status == .skipped {
            error = ErrorInfo(
                code: ErrorInfo.Code.stepSkipped,
                message: "\(label) could not run",
                step: spec.id,
                actions: offeredActions,
                detail: "skipped because \(state.skipReason ?? "a dependency did not succeed")"
            )
        } else {
            let failure = state.failure ?? StepFailure(code: ErrorInfo.Code.stepFailed, message: "failed", retryable: false)
            error = ErrorInfo(
                code: failure.code == ErrorInfo.Code.network ? ErrorInfo.Code.network : ErrorInfo.Code.stepFailed,
                message: ErrorInfo.userMessage(for: failure, label: label),
                step: spec.id,
                actions: offeredActions,
                detail: failure.message
            )
        }
        setPhase(.error)
        dirty = true
    }

    private mutating func restartRound(at now: Duration) {
        stopRunning(markSkipped: nil, at: now)
        for index in steps.indices where steps[index].status != .succeeded {
            let attempt = steps[index].attempt
            steps[index] = StepState()
            steps[index].attempt = attempt
            steps[index].roundBase = attempt
        }
        error = nil
        slow = false
        timedOut = false
        loadingSince = now
        setPhase(.loading)
        settle(at: now)
    }

    private mutating func continueOffline(at now: Duration) {
        stopRunning(markSkipped: "continued offline", at: now)
        for index in steps.indices {
            let state = steps[index]
            let failedCritical = state.status == .failed && graph.steps[index].critical
            if state.status == .pending || failedCritical {
                steps[index].status = .skipped
                steps[index].skipReason = "continued offline"
                steps[index].endedAt = steps[index].endedAt ?? now
            }
        }
        enterDismissing(at: now)
    }

    private mutating func enterDismissing(at now: Duration) {
        var facts: Facts = [:]
        for index in graph.order where steps[index].status == .succeeded {
            facts.merge(steps[index].facts) { _, new in new }
        }
        decided = Destination.decide(from: facts)
        error = nil
        dismissingSince = now
        setPhase(.dismissing)
    }

    private mutating func enterFinished(at now: Duration) {
        destination = decided ?? Destination.decide(from: [:])
        setPhase(.finished)
        emit(.event(.launchFinished(launch: launch, destination: destination!, elapsed: now - launchStartedAt)))
    }

    private mutating func setPhase(_ new: Phase) {
        guard new != phase else { return }
        emit(.event(.phaseChanged(from: phase, to: new)))
        phase = new
        dirty = true
    }

    private mutating func updateProgress(at now: Duration) {
        if phase == .dismissing || phase == .finished {
            progress = 1
            eta = nil
            return
        }
        if let estimator, estimator.hasHistory {
            let estimate = estimator.estimate(machine: self, at: now)
            eta = estimate.eta
            progress = max(progress, min(estimate.fraction, ProgressEstimator.cap))
            return
        }
        eta = nil
        var done = 0.0
        var total = 0.0
        for (index, state) in steps.enumerated() {
            let weight = index < weights.count ? max(0, weights[index]) : 1
            total += weight
            switch state.status {
            case .succeeded, .failed, .skipped: done += weight
            case .running: done += weight * min(state.fraction, 0.95)
            case .pending: break
            }
        }
        let raw = total > 0 ? min(done / total, 0.99) : 0
        progress = max(progress, raw)
    }
}
