public import SplashProtocol

/// Watches the app (design §14): decides, from what systemd reports about the app's unit, the app's
/// heartbeats and the passing of time, when the app is dead or hung and when restarting it has
/// become a crash loop.
///
/// A value type with no I/O and no clock, like `LaunchMachine`: its owner feeds it the unit's
/// states and jobs as systemd reports them, the start the launch's `app` step queued, `alive`
/// messages and `advance(to:)` at `nextDeadline`, each with the instant it happened, and carries
/// out the `Verdict`s it returns.
///
/// What it decides from (docs/systemd.md, "What counts as a crash"):
/// - **The values systemd sent, not a later read.** Each `UnitState` is the content of one
///   `PropertiesChanged` signal pair (systemd sends the service's properties, then the unit's, from
///   the same moment), so `ActiveState` and `Job` belong together. A stop job is installed while its
///   unit goes down: systemd sends the unit's pending change (down, with the job) before the job's
///   `JobRemoved`, so a down state without a job is one no job caused, however fast the job was.
/// - **The launch's own start.** From a launch's start (`launchBegan`) until the start job its
///   `app` step queued has ended (`startQueued`, `jobEnded`), the unit's states belong to that
///   start and to the end of the app it replaces (splashd's own kill of a hung app among them):
///   nothing is a crash. Once the start job ended `done`, the app runs, and a down state with no
///   job is a crash, while the splash is still up too (an app that dies before its first frame).
///   A start job that ended otherwise (`failed`, `timeout`, `dependency`) is one too.
/// - **Someone's stop.** A down state with a job, or after one was seen since the unit last ran
///   without one, was asked for (`systemctl stop`, a shutdown): the app stays stopped, its
///   heartbeat is not expected, until the next launch or until it is seen running again.
public struct AppWatch: Sendable {
    /// The app unit's state as systemd's D-Bus API reported it in one signal (or one `GetAll`).
    public struct UnitState: Sendable, Equatable {
        /// `ActiveState`: `active`, `reloading`, `inactive`, `failed`, `activating`, `deactivating`.
        public var activeState: String
        /// `SubState`, e.g. `running`, `dead`, `exited`.
        public var subState: String
        /// The id of the job queued for the unit (a start, stop or restart someone asked for), 0
        /// when none is.
        public var job: UInt32
        /// The service's `MainPID` (0 when it has none).
        public var mainPID: UInt32
        /// The service's `Result`: `success`, `exit-code`, `signal`, `core-dump`, `timeout`, …
        /// (empty when not reported).
        public var result: String

        public init(activeState: String, subState: String, job: UInt32 = 0, mainPID: UInt32 = 0, result: String = "") {
            self.activeState = activeState
            self.subState = subState
            self.job = job
            self.mainPID = mainPID
            self.result = result
        }

        /// Whether a job is queued for the unit.
        public var hasJob: Bool { job != 0 }

        /// Down or going down: what an app that is gone looks like.
        public var isDown: Bool { ["inactive", "failed", "deactivating"].contains(activeState) }

        /// `active/running`, with the service's result when it says more than `success`.
        public var summary: String {
            let state = "\(activeState)/\(subState)"
            return result.isEmpty || result == "success" ? state : "\(state), result \(result)"
        }
    }

    /// Where the app is in its life, as far as the watch knows.
    public enum Stage: Sendable, Equatable {
        /// A launch began and its start of the app has not finished: the unit's states are that
        /// start's (and the end of the app it replaces), not a crash.
        case starting
        /// The app was started (its start job done) or seen running since: a down nobody asked
        /// for is a crash, and its heartbeat is expected once the launch finished.
        case running
        /// Someone stopped it: nothing is expected of it until the next launch starts it or it is
        /// seen running again.
        case stopped
    }

    /// What the owner must do.
    public enum Verdict: Sendable, Equatable {
        /// Start a launch for `reason` (`app-exited` or `app-hung`): the splash comes back (or
        /// the launch that is up starts again) and the launch's `app` step restarts the unit.
        case recover(LaunchReason)
        /// The app keeps stopping: start a launch held in `error` (`app-crash-loop`), restarting
        /// nothing until Retry.
        case crashLoop(LaunchReason)
    }

    public let settings: AppSettings
    /// Whether the launch finished: from then on a missed heartbeat is a hang.
    public private(set) var armed = false
    public private(set) var stage = Stage.starting
    /// The unit's last reported state.
    public private(set) var unit: UnitState?
    /// A job was seen on the unit since it last ran without one: a down state now was asked for.
    public private(set) var stopRequested = false
    /// The start job this launch's `app` step queued, until it ends (0: its id is unknown, so
    /// the unit seen running without a job stands for its end).
    public private(set) var startJob: UInt32?
    /// The last state is the first of a connection to the bus (the watch's start, or its return),
    /// read after jobs may have ended unseen.
    private var stateFromConnect = false
    /// Jobs of the unit that ended this launch before the start that queued them was known
    /// (systemd's signals and the reply to the start come over different connections).
    private var endedJobs: [UInt32: String] = [:]
    /// When the last heartbeat came (or the watch was armed).
    public private(set) var lastAlive: Duration = .zero
    /// When recent recoveries began, oldest first, within `restartWindow`.
    public private(set) var recoveries: [Duration] = []

    /// Most jobs remembered by `endedJobs` (an operator's loop of starts and stops cannot grow it).
    static let rememberedJobs = 64

    public init(settings: AppSettings) {
        self.settings = settings
    }

    /// A launch began: its `app` step (re)starts the app, and until that start has ended nothing
    /// the unit does is a crash.
    public mutating func launchBegan() {
        armed = false
        stage = .starting
        startJob = nil
        endedJobs = [:]
        stopRequested = false
    }

    /// The launch finished: heartbeats are expected from now. An app that is down after it was
    /// started is recovered at once.
    public mutating func arm(at now: Duration) -> Verdict? {
        armed = true
        lastAlive = now
        return judgeUnit(at: now)
    }

    /// The launch's `app` step queued the start (or restart) with systemd's job `job` (0 when
    /// systemd's answer had no job id).
    public mutating func startQueued(job: UInt32, at now: Duration) -> Verdict? {
        guard stage == .starting else { return nil }
        if job != 0, let result = endedJobs.removeValue(forKey: job) { return startEnded(result, at: now) }
        startJob = job
        // Its id unknown, or its JobRemoved possibly sent before the watch was connected (the
        // state read then is newer than the start): the unit running without a job says it ended.
        if job == 0 || stateFromConnect, let unit, !unit.isDown, !unit.hasJob { return startEnded("done", at: now) }
        return nil
    }

    /// systemd's `JobRemoved` for a job of the unit: `result` is `done`, `canceled`, `failed`, …
    public mutating func jobEnded(_ job: UInt32, result: String, at now: Duration) -> Verdict? {
        if stage == .starting, let startJob, startJob == job {
            return startEnded(result, at: now)
        }
        if stage == .starting {
            if endedJobs.count >= Self.rememberedJobs { endedJobs = [:] }
            endedJobs[job] = result
        }
        // Someone else's job: a down state that follows it was its doing.
        stopRequested = true
        return nil
    }

    /// systemd reported the unit's state. `afterGap`: the first state of a connection to the bus
    /// (the watch's first, or after it was lost), when jobs may have ended unseen.
    public mutating func unitChanged(_ state: UnitState, at now: Duration, afterGap: Bool = false) -> Verdict? {
        unit = state
        stateFromConnect = afterGap
        if state.hasJob {
            stopRequested = true
        } else if !state.isDown {
            stopRequested = false
            switch stage {
            case .stopped:
                // Started again by someone: watched again, its heartbeat from now.
                stage = .running
                lastAlive = now
            case .starting where startJob == 0 || (startJob != nil && afterGap):
                return startEnded("done", at: now)
            default: break
            }
        }
        return judgeUnit(at: now)
    }

    /// The app sent `alive`.
    public mutating func alive(at now: Duration) {
        lastAlive = now
    }

    /// The recoveries of an earlier run of the daemon (`AppRecoveryLedger`), as instants of this
    /// watch's clock (before its zero, most of them).
    public mutating func restore(recoveries: [Duration]) {
        self.recoveries = recoveries.sorted()
    }

    /// Retry of a crash loop: the count starts again.
    public mutating func forgetRecoveries() {
        recoveries = []
    }

    /// When the app counts as hung if no heartbeat comes first: only while it runs and the launch
    /// has finished (a stopped app has no heartbeat to miss).
    public var nextDeadline: Duration? {
        guard armed, stage == .running, let heartbeat = settings.heartbeat else { return nil }
        return lastAlive + heartbeat * AppSettings.missedHeartbeats
    }

    /// Time passed: a hang when three heartbeats were missed.
    public mutating func advance(to now: Duration) -> Verdict? {
        guard let deadline = nextDeadline, now >= deadline else { return nil }
        return recover(.appHung, at: now)
    }

    private mutating func startEnded(_ result: String, at now: Duration) -> Verdict? {
        startJob = nil
        endedJobs = [:]
        switch result {
        case "done":
            stage = .running
            lastAlive = now
            // The job seen on the unit was this start; a down state still here is from before it
            // (systemd sends the start's own state change before the job's JobRemoved).
            stopRequested = false
            if unit?.isDown == true { unit = nil }
            return judgeUnit(at: now)
        case "canceled":
            // Replaced by someone's job (a `systemctl stop` while it started).
            stage = .stopped
            return nil
        default:
            // `failed`, `timeout`, `dependency`, …: the app did not start.
            stage = .running
            return recover(.appExited, at: now)
        }
    }

    private mutating func judgeUnit(at now: Duration) -> Verdict? {
        guard stage == .running, let unit, unit.isDown, !unit.hasJob else { return nil }
        if stopRequested {
            stage = .stopped
            return nil
        }
        return recover(.appExited, at: now)
    }

    /// A recovery, or a crash loop when `maxRestarts` recoveries already began within the window.
    /// Either way the owner starts a launch, so the watch waits for that launch's start.
    private mutating func recover(_ reason: LaunchReason, at now: Duration) -> Verdict {
        armed = false
        stage = .starting
        startJob = nil
        recoveries.removeAll { $0 <= now - settings.restartWindow }
        guard recoveries.count < settings.maxRestarts else { return .crashLoop(reason) }
        recoveries.append(now)
        return .recover(reason)
    }
}
