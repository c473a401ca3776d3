import SplashCore
import Testing

/// The pure app watch: every verdict on an injected time line.
@Suite struct AppWatchTests {
    let running = AppWatch.UnitState(activeState: "active", subState: "running")
    let failed = AppWatch.UnitState(activeState: "failed", subState: "failed", result: "exit-code")
    let dead = AppWatch.UnitState(activeState: "inactive", subState: "dead")

    /// A watch whose launch began and whose start job `job` ended `done` at `at`.
    func started(_ settings: AppSettings = AppSettings(unit: "a.service"), job: UInt32 = 1, at: Duration = .zero) -> AppWatch {
        var watch = AppWatch(settings: settings)
        watch.launchBegan()
        #expect(watch.startQueued(job: job, at: at) == nil)
        #expect(watch.jobEnded(job, result: "done", at: at) == nil)
        #expect(watch.stage == .running)
        return watch
    }

    @Test func nothingIsDecidedBeforeTheLaunchsStartOfTheAppEnded() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service", heartbeat: .seconds(1)))
        watch.launchBegan()
        // The app it replaces going down (splashd's own kill of a hung one among them).
        #expect(watch.unitChanged(failed, at: .seconds(1)) == nil)
        #expect(watch.nextDeadline == nil)
        #expect(watch.advance(to: .seconds(100)) == nil)
        // Found on a real systemd: at every start of splashd, a launch without a signal step
        // finished before systemd had started the unit, and the unit's inactive state was taken
        // for a crash. Now nothing is decided until the start job ended.
        #expect(watch.startQueued(job: 7, at: .seconds(2)) == nil)
        #expect(watch.unitChanged(dead, at: .seconds(2)) == nil)
        #expect(watch.arm(at: .seconds(2)) == nil)
        #expect(watch.nextDeadline == nil, "no heartbeat is expected from an app not started yet")
        #expect(watch.unitChanged(AppWatch.UnitState(activeState: "active", subState: "running", job: 7), at: .seconds(3)) == nil)
        #expect(watch.jobEnded(7, result: "done", at: .seconds(3)) == nil)
        #expect(watch.nextDeadline == .seconds(6))
        #expect(watch.unitChanged(failed, at: .seconds(4)) == .recover(.appExited))
    }

    @Test func aStartJobThatEndedBeforeItsIdWasKnownCounts() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service"))
        watch.launchBegan()
        // systemd's signals and its answer to the start come over different connections.
        #expect(watch.jobEnded(9, result: "done", at: .zero) == nil)
        #expect(watch.startQueued(job: 9, at: .zero) == nil)
        #expect(watch.stage == .running)
        #expect(watch.unitChanged(failed, at: .seconds(1)) == .recover(.appExited))
    }

    /// Found with the fake systemd: the start's JobRemoved came before the watch's first
    /// connection had its match, and the app was never watched.
    @Test func aStartWhoseJobEndedBeforeTheWatchConnectedCounts() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service"))
        watch.launchBegan()
        // The connection's first state, read after the job ended unseen; the start's answer after it.
        #expect(watch.unitChanged(running, at: .zero, afterGap: true) == nil)
        #expect(watch.startQueued(job: 3, at: .zero) == nil)
        #expect(watch.stage == .running)
        #expect(watch.unitChanged(failed, at: .seconds(1)) == .recover(.appExited))
        // Not so for a state that is not a connection's first: it may be from before the start.
        watch.launchBegan()
        _ = watch.unitChanged(running, at: .seconds(2))
        _ = watch.startQueued(job: 4, at: .seconds(2))
        #expect(watch.stage == .starting)
    }

    @Test func anAppThatDiesBeforeItsFirstFrameIsARecoveryAndThenACrashLoop() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service", maxRestarts: 2))
        var verdicts: [AppWatch.Verdict?] = []
        for second in 0..<3 {
            watch.launchBegan()
            _ = watch.startQueued(job: UInt32(second + 1), at: .seconds(Int64(second)))
            _ = watch.unitChanged(AppWatch.UnitState(activeState: "active", subState: "running", job: UInt32(second + 1)), at: .seconds(Int64(second)))
            _ = watch.jobEnded(UInt32(second + 1), result: "done", at: .seconds(Int64(second)))
            // Never armed: the launch is still waiting for the app's first frame.
            verdicts.append(watch.unitChanged(failed, at: .seconds(Int64(second))))
        }
        #expect(verdicts == [.recover(.appExited), .recover(.appExited), .crashLoop(.appExited)])
    }

    @Test func aStartJobThatFailedIsARecovery() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service"))
        watch.launchBegan()
        _ = watch.startQueued(job: 3, at: .zero)
        #expect(watch.jobEnded(3, result: "failed", at: .zero) == .recover(.appExited))
        // A start replaced by someone's stop was asked for.
        watch.launchBegan()
        _ = watch.startQueued(job: 4, at: .zero)
        #expect(watch.jobEnded(4, result: "canceled", at: .zero) == nil)
        #expect(watch.stage == .stopped)
        #expect(watch.unitChanged(dead, at: .seconds(1)) == nil)
    }

    @Test func aCleanExitAndAFailureAreBothRecoveries() {
        for state in [failed, dead, AppWatch.UnitState(activeState: "deactivating", subState: "stop-post")] {
            var watch = started()
            _ = watch.unitChanged(running, at: .zero)
            #expect(watch.arm(at: .zero) == nil)
            #expect(watch.unitChanged(state, at: .seconds(1)) == .recover(.appExited), "\(state)")
            #expect(watch.stage == .starting, "the next launch starts it")
        }
    }

    /// Found under systemd 252: a stop job that completed within 3 ms was never seen when the
    /// state was read again after each signal; systemd's own signal has the job with the down state.
    @Test func aStopIsTakenFromTheSignalsOwnJobHoweverFastItWas() {
        var watch = started(AppSettings(unit: "a.service", heartbeat: .seconds(1)))
        _ = watch.arm(at: .zero)
        // What systemd sends for `systemctl stop`: the unit down with the job, JobRemoved, the job gone.
        #expect(watch.unitChanged(AppWatch.UnitState(activeState: "inactive", subState: "dead", job: 40), at: .seconds(1)) == nil)
        #expect(watch.jobEnded(40, result: "done", at: .seconds(1)) == nil)
        #expect(watch.unitChanged(dead, at: .seconds(1)) == nil)
        #expect(watch.stage == .stopped)
        // A stopped app has no heartbeat to miss (found: it was killed and started 2.6 s later).
        #expect(watch.nextDeadline == nil)
        #expect(watch.advance(to: .seconds(100)) == nil)
        // Started again by the operator, then crashed: that is a crash, and its heartbeat counts again.
        #expect(watch.unitChanged(AppWatch.UnitState(activeState: "activating", subState: "start", job: 41), at: .seconds(200)) == nil)
        #expect(watch.jobEnded(41, result: "done", at: .seconds(200)) == nil)
        #expect(watch.unitChanged(running, at: .seconds(200)) == nil)
        #expect(watch.nextDeadline == .seconds(203))
        #expect(watch.unitChanged(failed, at: .seconds(201)) == .recover(.appExited))
    }

    @Test func aJobThatEndedBeforeTheDownStateIsAStopToo() {
        var watch = started()
        _ = watch.arm(at: .zero)
        #expect(watch.jobEnded(50, result: "done", at: .seconds(1)) == nil)
        #expect(watch.unitChanged(dead, at: .seconds(1)) == nil)
        #expect(watch.stage == .stopped)
    }

    @Test func afterABusGapAStartSeenRunningHasEnded() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service"))
        watch.launchBegan()
        _ = watch.startQueued(job: 5, at: .zero)
        // Its JobRemoved was lost with the bus; the state read when the watch is back says it runs.
        #expect(watch.unitChanged(running, at: .seconds(1)) == nil)
        #expect(watch.stage == .starting, "a running state alone may be from before the start")
        #expect(watch.unitChanged(running, at: .seconds(2), afterGap: true) == nil)
        #expect(watch.stage == .running)
        // A start whose job id systemd did not name: the unit seen running without a job.
        watch.launchBegan()
        _ = watch.startQueued(job: 0, at: .seconds(3))
        #expect(watch.stage == .running)
    }

    @Test func threeHeartbeatsMissedIsAHangCountedFromTheLastOne() {
        var watch = started(AppSettings(unit: "a.service", heartbeat: .seconds(10)))
        _ = watch.arm(at: .seconds(100))
        #expect(watch.nextDeadline == .seconds(130))
        watch.alive(at: .seconds(125))
        #expect(watch.advance(to: .seconds(130)) == nil)
        #expect(watch.nextDeadline == .seconds(155))
        #expect(watch.advance(to: .seconds(155)) == .recover(.appHung))
        #expect(watch.nextDeadline == nil, "disarmed until the next launch finishes")
    }

    @Test func moreThanMaxRestartsWithinTheWindowIsACrashLoopAndOldOnesAgeOut() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service", maxRestarts: 2, restartWindow: .seconds(60)))
        func crash(at second: Int64) -> AppWatch.Verdict? {
            watch.launchBegan()
            _ = watch.startQueued(job: UInt32(second + 1), at: .seconds(second))
            _ = watch.jobEnded(UInt32(second + 1), result: "done", at: .seconds(second))
            _ = watch.unitChanged(running, at: .seconds(second))
            _ = watch.arm(at: .seconds(second))
            return watch.unitChanged(failed, at: .seconds(second))
        }
        #expect(crash(at: 0) == .recover(.appExited))
        #expect(crash(at: 10) == .recover(.appExited))
        #expect(crash(at: 20) == .crashLoop(.appExited))
        // A minute after the first, it has aged out of the window.
        #expect(crash(at: 61) == .recover(.appExited))
        watch.forgetRecoveries()
        #expect(watch.recoveries.isEmpty)
    }

    @Test(arguments: [
        ("kiosk-app.service", nil), ("kiosk@tty1.service", nil), ("a\\x2db.service", nil),
        ("kiosk-app", "must name a .service unit"), (".service", "has no name before .service"),
        ("a@b@c.service", "has more than one @"), ("@x.service", "has no name before @"), ("a/b.service", "contains \"/\""),
        ("a\u{1B}.service", "a control character"),
    ] as [(String, String?)])
    func unitNames(name: String, problem: String?) {
        let found = AppSettings.problem(withUnitName: name)
        if let problem { #expect(found?.contains(problem) == true, "\(found ?? "nil")") } else { #expect(found == nil) }
    }
}
