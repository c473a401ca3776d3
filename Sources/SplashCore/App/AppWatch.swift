/// Watches the app after `finished` (SPEC §14): decides, from the app unit's states, the app's
/// heartbeats and the passing of time, when the app is dead or hung and when restarting it has
/// become a crash loop.
///
/// A value type with no I/O and no clock, like `LaunchMachine`: its owner feeds it the unit's
/// states as systemd reports them, `alive` messages and `advance(to:)` at `nextDeadline`, each
/// with the instant it happened, and carries out the `Verdict`s it returns. It acts only while
/// armed — from a launch's `finished` until the next launch starts — so an app that dies while
/// the splash is up is the launch's business (its `first-frame` never comes), not a second
/// recovery.
public struct AppWatch: Sendable {
    /// The app unit's state as systemd's D-Bus API reports it.
    public struct UnitState: Sendable, Equatable {
        /// `ActiveState`: `active`, `reloading`, `inactive`, `failed`, `activating`, `deactivating`.
        public var activeState: String
        /// `SubState`, e.g. `running`, `dead`, `exited`.
        public var subState: String
        /// Whether a job (a start, stop or restart someone asked for) is queued for the unit.
        public var hasJob: Bool

        public init(activeState: String, subState: String, hasJob: Bool) {
            self.activeState = activeState
            self.subState = subState
            self.hasJob = hasJob
        }

        /// Down or going down: what an app that is gone looks like.
        public var isDown: Bool { ["inactive", "failed", "deactivating"].contains(activeState) }
    }

    /// What the owner must do.
    public enum Verdict: Sendable, Equatable {
        /// Start a launch for `reason` (`app-exited` or `app-hung`): the splash comes back and the
        /// launch's `app-start` step restarts the unit.
        case recover(LaunchReason)
        /// The app keeps stopping: start a launch held in `error` (`app-crash-loop`), restarting
        /// nothing until Retry.
        case crashLoop(LaunchReason)
    }

    public let settings: AppSettings
    /// Whether the watch acts: from `finished` to the next launch.
    public private(set) var armed = false
    /// The unit's last reported state.
    public private(set) var unit: UnitState?
    /// A job was seen on the unit since it was last active without one: its stop was asked for
    /// (`systemctl stop`, a shutdown), so it is not a crash.
    public private(set) var stopRequested = false
    /// When the last heartbeat came (or the watch was armed).
    public private(set) var lastAlive: Duration = .zero
    /// When recent recoveries began, oldest first, within `restartWindow`.
    public private(set) var recoveries: [Duration] = []

    public init(settings: AppSettings) {
        self.settings = settings
    }

    /// The launch finished: watch from now. An app already down is recovered at once.
    public mutating func arm(at now: Duration) -> Verdict? {
        armed = true
        lastAlive = now
        return judgeUnit(at: now)
    }

    /// A launch began: the splash is up, and the launch decides. The unit's state from before
    /// is forgotten: the launch (re)starts the app, and only what systemd reports from now on
    /// says whether it is down when the launch finishes (the down state that caused a recovery
    /// must not cause another one when that recovery finishes before systemd reports the restart).
    public mutating func disarm() {
        armed = false
        unit = nil
        stopRequested = false
    }

    /// systemd reported the unit's state.
    public mutating func unitChanged(_ state: UnitState, at now: Duration) -> Verdict? {
        unit = state
        if state.hasJob {
            stopRequested = true
        } else if !state.isDown {
            stopRequested = false
        }
        return judgeUnit(at: now)
    }

    /// The app sent `alive`.
    public mutating func alive(at now: Duration) {
        lastAlive = now
    }

    /// Retry of a crash loop: the count starts again.
    public mutating func forgetRecoveries() {
        recoveries = []
    }

    /// When the app counts as hung if no heartbeat comes first.
    public var nextDeadline: Duration? {
        guard armed, let heartbeat = settings.heartbeat else { return nil }
        return lastAlive + heartbeat * AppSettings.missedHeartbeats
    }

    /// Time passed: a hang when three heartbeats were missed.
    public mutating func advance(to now: Duration) -> Verdict? {
        guard let deadline = nextDeadline, now >= deadline else { return nil }
        return recover(.appHung, at: now)
    }

    private mutating func judgeUnit(at now: Duration) -> Verdict? {
        guard armed, let unit, unit.isDown, !unit.hasJob, !stopRequested else { return nil }
        return recover(.appExited, at: now)
    }

    /// A recovery, or a crash loop when `maxRestarts` recoveries already began within the window.
    private mutating func recover(_ reason: LaunchReason, at now: Duration) -> Verdict {
        armed = false
        recoveries.removeAll { $0 <= now - settings.restartWindow }
        guard recoveries.count < settings.maxRestarts else { return .crashLoop(reason) }
        recoveries.append(now)
        return .recover(reason)
    }
}
