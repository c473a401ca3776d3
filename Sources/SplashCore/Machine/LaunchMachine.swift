public import SplashJSON
public import SplashProtocol

/// The launch state machine: which steps run, which phase the splash is in, and when it moves on.
///
/// A value type with no I/O and no clock of its own. Its owner feeds it inputs — a step's result,
/// a user command, the passing of time via `advance(to:)` — each with the instant it happened
/// (a `Duration` since an arbitrary origin), and carries out the `LaunchAction`s it returns:
/// start or cancel a step attempt, log an event, publish the new `snapshot(at:)`. The owner sleeps
/// until `nextDeadline` and then calls `advance(to:)`, so every timed transition (`slow_after`,
/// `timeout`, `min_display`, `exit_animation`, a step's timeout, a retry backoff) happens at its
/// exact instant, never on a polling tick. A `.publish` action says the observable state changed;
/// the owner calls `publish(at:)` when it sends a state — after every change, or once for several
/// (coalescing), never missing a phase change.
///
/// Each input costs time in the steps it touches, not in the size of the graph: the machine keeps,
/// per step, the count of dependencies not yet succeeded, and the sets of running and ready steps.
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
        public var code: ErrorCode { .invalidTransition }
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
    /// Expected step durations from past launches: when it has history, progress tracks time and
    /// `eta` is set; without, every step weighs the same.
    public var estimator: ProgressEstimator?
    /// When set, a state is published at least this often while loading (see `wantsTicks`), so a
    /// progress bar moves smoothly and `elapsed_ms` / `duration_ms` stay fresh.
    public var tickInterval: Duration?

    public internal(set) var launch = ""
    /// Why the current launch began.
    public internal(set) var reason = LaunchReason.boot
    /// Where the app was, for a launch that brings it back after an exit or a hang.
    public internal(set) var restoring: Destination.Restoration?
    /// The phase with its data; see `LaunchStage`.
    public internal(set) var stage = LaunchStage.loading
    /// Grows by one with every published state.
    public internal(set) var seq: UInt64 = 0
    public internal(set) var steps: [StepState]
    public internal(set) var slow = false
    /// As of the last `publish(at:)`.
    public internal(set) var progress: Double = 0
    /// The expected time until `dismissing`, from the estimator, as of the last `publish(at:)`.
    public internal(set) var eta: Duration?
    public internal(set) var launchStartedAt: Duration = .zero
    /// When the current `loading` period began (the launch start, or the last `retry`).
    public internal(set) var loadingSince: Duration = .zero
    /// An update or a shutdown has the display (`ModeMachine`): the launch's work goes on, but it
    /// does not leave `loading` for `dismissing`, and once its work is done its `timeout` waits.
    public internal(set) var held = false

    var nextToken: UInt64 = 0
    var dirty = false
    /// The last instant the state changed (ticks count from it).
    var lastChangeAt: Duration = .zero
    var actions: [LaunchAction] = []

    // Bookkeeping, kept by `setStatus` (see LaunchMachine+Scheduling.swift).
    /// Per step: dependencies that have not succeeded.
    var unmet: [Int]
    /// Steps whose dependencies all succeeded since the last settle (may hold stale entries).
    var ready: [Int] = []
    /// Steps that failed or were skipped since the last settle: their pending dependants are skipped.
    var blocked: [Int] = []
    /// Steps `running` (including those waiting out a retry backoff).
    var running: Set<Int> = []
    var terminalCount = 0
    /// Critical steps that have not succeeded.
    var criticalUnsucceeded = 0
    /// Critical steps that failed or were skipped.
    var brokenCritical: Set<Int> = []
    var indexByToken: [UInt64: Int] = [:]
    /// Each step's position in `graph.order`: new attempts start in that order.
    let orderPosition: [Int]

    /// - Parameter seq: where `seq` continues from (a reloaded graph keeps counting).
    public init(graph: StepGraph, settings: SplashSettings, seq: UInt64 = 0) {
        self.graph = graph
        self.settings = settings
        self.seq = seq
        self.steps = Array(repeating: StepState(), count: graph.steps.count)
        self.unmet = graph.dependencies.map(\.count)
        var position = Array(repeating: 0, count: graph.steps.count)
        for (rank, index) in graph.order.enumerated() { position[index] = rank }
        self.orderPosition = position
    }

    // MARK: Inputs

    /// Begins a launch with id `launch` at `now`, for `reason`.
    ///
    /// With `holding`, the launch begins in a hard `error` with that information instead of
    /// running its steps: nothing runs until `retry` (the app's crash loop, design §14).
    /// `restoring` is where the app was, for a launch that brings it back (`Destination.restoring`).
    public mutating func start(
        launch: String, reason: LaunchReason = .boot, holding: ErrorInfo? = nil, restoring: Destination.Restoration? = nil,
        at now: Duration
    ) -> [LaunchAction] {
        // What clients sent for the previous launch is forgotten (the first has none before it).
        if !self.launch.isEmpty { emit(.resetLaunchInputs) }
        self.launch = launch
        self.reason = reason
        self.restoring = restoring
        steps = Array(repeating: StepState(), count: graph.steps.count)
        rebuildBookkeeping()
        launchStartedAt = now
        loadingSince = now
        slow = false
        progress = 0
        eta = nil
        let previous = phase
        stage = .loading
        emit(.event(.launchStarted(launch: launch, reason: reason)))
        if previous != .loading { emit(.event(.phaseChanged(from: previous, to: .loading))) }
        dirty = true
        if let holding {
            setStage(.error(.failed(holding)))
            return drain(at: now)
        }
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
            steps[index].facts = facts
            steps[index].fraction = 1
            steps[index].endedAt = now
            steps[index].attemptDeadline = nil
            steps[index].failure = nil
            setStatus(index, .succeeded)
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

    /// Newer facts for step `id`, which already succeeded, while the launch has not yet decided
    /// where it goes (`loading`, or a soft `error`): a deep link or quick action that came after the
    /// `quick-action` step ran replaces what that step found, and the destination follows
    /// (design §7: commands received while loading feed the destination). Nil (nothing changed)
    /// when the step has not succeeded or the launch is dismissing or finished: then the input is
    /// too late for the destination.
    public mutating func amendFacts(_ facts: Facts, ofStep id: String, at now: Duration) -> [LaunchAction]? {
        guard let index = graph.index(of: id), steps[index].status == .succeeded else { return nil }
        switch stage {
        case .loading, .error: break
        case .dismissing, .finished: return nil
        }
        if steps[index].facts != facts {
            steps[index].facts = facts
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
            guard !held else {
                throw Refusal(message: "continue-offline waits: an update or a shutdown has the display")
            }
            guard settings.allowOffline else {
                throw Refusal(message: "continue-offline is not allowed here (allow_offline = false)")
            }
            guard error?.actions.contains(.continueOffline) != false else {
                throw Refusal(message: "continue-offline is not offered for this error (\(error?.code.rawValue ?? "?"))")
            }
            continueOffline(at: now)
        case .dismissed:
            guard case .dismissing(_, let destination) = stage else {
                throw Refusal(message: "dismissed is only possible in phase dismissing")
            }
            enterFinished(destination, at: now)
        case .relaunch(let launch):
            guard phase == .finished else {
                throw Refusal(message: "relaunch is only possible in phase finished")
            }
            return start(launch: launch, reason: .relaunch, at: now)
        }
        return drain(at: now)
    }

    /// Holds the launch (an update or a shutdown has the display) or lets it go on: released with
    /// its work done, it moves on to `dismissing` at once (its `min_display` long past).
    public mutating func hold(_ held: Bool, at now: Duration) -> [LaunchAction] {
        guard held != self.held else { return [] }
        self.held = held
        if !held { settle(at: now) }
        return drain(at: now)
    }

    /// The state to send now: brings `progress` and `eta` up to date and counts one more `seq`.
    public mutating func publish(at now: Duration) -> StateMessage {
        updateProgress(at: now)
        seq += 1
        return snapshot(at: now)
    }

    // MARK: The stage, read

    /// The phase renderers see.
    public var phase: Phase { stage.phase }

    /// Set in phase `error`.
    public var error: ErrorInfo? {
        if case .error(let error) = stage { error.info } else { nil }
    }

    /// Where the app goes: set in `dismissing` and `finished`, and in `loading` as soon as only
    /// `signal` steps are left to finish.
    ///
    /// Renderers need it before `finished`: a page loads the app beneath the splash while the exit
    /// animation is due, and a `signal` step such as `first-frame` can only be completed by a
    /// renderer that already knows which screen of the app to load. Signal steps return no facts,
    /// so the destination seen while they wait is the one the launch ends with (a quick action
    /// sent later is broadcast as an event after `finished`, as always).
    public var destination: Destination? {
        switch stage {
        case .finished(let destination), .dismissing(_, let destination): destination
        case .loading: onlySignalsLeft ? decidedDestination : nil
        case .error: nil
        }
    }

    /// Every step but `signal` ones has finished, each critical one successfully. (A step after
    /// an unfinished signal has not finished either, so then there is no preview.)
    var onlySignalsLeft: Bool {
        for (index, state) in steps.enumerated() where graph.steps[index].plugin != BuiltinPlugin.signal.name {
            if !state.status.isTerminal || (graph.steps[index].critical && state.status != .succeeded) { return false }
        }
        return true
    }

    /// Where the facts found so far lead, with the place restored when the launch brings the app back.
    var decidedDestination: Destination {
        Destination.decide(from: succeededFacts).restoring(restoring)
    }

    /// The facts of the steps that succeeded, later steps in graph order winning.
    public var succeededFacts: Facts {
        var facts: Facts = [:]
        for index in graph.order where steps[index].status == .succeeded {
            facts.merge(steps[index].facts) { _, new in new }
        }
        return facts
    }

    /// When the exit animation began, in phase `dismissing`.
    public var dismissingSince: Duration? {
        if case .dismissing(let since, _) = stage { since } else { nil }
    }

    // MARK: Time

    /// The next instant at which something happens by itself, if any.
    public var nextDeadline: Duration? {
        var next: Duration?
        func consider(_ instant: Duration) { next = min(next ?? instant, instant) }
        if workMayRun {
            for index in running {
                if let retryAt = steps[index].retryAt {
                    consider(retryAt)
                } else if let deadline = steps[index].attemptDeadline {
                    consider(deadline)
                }
            }
            if isWorkComplete && !held { consider(launchStartedAt + settings.minDisplay) }
        }
        if let tickInterval, phase == .loading, wantsTicks { consider(lastChangeAt + tickInterval) }
        switch stage {
        case .loading:
            if !slow && isCriticalWorkPending { consider(loadingSince + settings.slowAfter) }
            if !(held && isWorkComplete) { consider(loadingSince + settings.timeout) }
        case .dismissing(let since, _): consider(since + settings.exitAnimation)
        case .error, .finished: break
        }
        return next
    }

    /// Steps run in `loading` and during the soft timeout error.
    var workMayRun: Bool {
        switch stage {
        case .loading: true
        case .error(let error): error.letsWorkRun
        case .dismissing, .finished: false
        }
    }

    /// Every step finished, critical ones succeeded.
    var isWorkComplete: Bool { terminalCount == steps.count && criticalUnsucceeded == 0 }

    var hasUnfinishedWork: Bool { terminalCount < steps.count }

    /// A critical step has not succeeded yet: the launch is waiting on work. Only then can it turn
    /// `slow` (design §3): one whose critical work is done, waiting out `min_display` (or a
    /// non-critical step), is not slow, and renderers show no indicator for it.
    var isCriticalWorkPending: Bool { criticalUnsucceeded > 0 }

    /// Ticks keep a bar moving while loading: while steps run, and, when progress tracks time
    /// (history), while the launch waits out `min_display`. None in `error`: no bar is shown.
    var wantsTicks: Bool { hasUnfinishedWork || estimator?.hasHistory == true }

    mutating func emit(_ action: LaunchAction) { actions.append(action) }

    mutating func drain(at now: Duration) -> [LaunchAction] {
        if dirty {
            lastChangeAt = now
            actions.append(.publish)
            dirty = false
        }
        defer { actions = [] }
        return actions
    }
}
