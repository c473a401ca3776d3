import SplashCore
import Testing

/// The pure app watch: every verdict on an injected time line.
@Suite struct AppWatchTests {
    let running = AppWatch.UnitState(activeState: "active", subState: "running", hasJob: false)
    let failed = AppWatch.UnitState(activeState: "failed", subState: "failed", hasJob: false)
    let dead = AppWatch.UnitState(activeState: "inactive", subState: "dead", hasJob: false)

    @Test func nothingIsDecidedBeforeTheLaunchFinishes() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service", heartbeat: .seconds(1)))
        #expect(watch.unitChanged(failed, at: .seconds(1)) == nil)
        #expect(watch.nextDeadline == nil)
        #expect(watch.advance(to: .seconds(100)) == nil)
        // Armed with the unit down: recovered at once.
        #expect(watch.arm(at: .seconds(2)) == .recover(.appExited))
        #expect(!watch.armed)
    }

    /// Found by `make bench-app`: a recovery launch that finished before systemd reported the
    /// restart was recovered again, from the state that caused it.
    @Test func aDownStateFromBeforeALaunchDoesNotCountAtItsEnd() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service"))
        _ = watch.unitChanged(running, at: .zero)
        _ = watch.arm(at: .zero)
        #expect(watch.unitChanged(failed, at: .seconds(1)) == .recover(.appExited))
        watch.disarm()
        #expect(watch.arm(at: .seconds(2)) == nil)
        // What systemd reports after the launch began still counts.
        watch.disarm()
        _ = watch.unitChanged(failed, at: .seconds(3))
        #expect(watch.arm(at: .seconds(4)) == .recover(.appExited))
    }

    @Test func aCleanExitAndAFailureAreBothRecoveries() {
        for state in [failed, dead, AppWatch.UnitState(activeState: "deactivating", subState: "stop-sigterm", hasJob: false)] {
            var watch = AppWatch(settings: AppSettings(unit: "a.service"))
            _ = watch.unitChanged(running, at: .zero)
            #expect(watch.arm(at: .zero) == nil)
            #expect(watch.unitChanged(state, at: .seconds(1)) == .recover(.appExited), "\(state)")
        }
    }

    @Test func aStopWithAJobIsNotACrashUntilTheUnitRunsAgain() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service"))
        _ = watch.unitChanged(running, at: .zero)
        _ = watch.arm(at: .zero)
        #expect(watch.unitChanged(AppWatch.UnitState(activeState: "deactivating", subState: "stop-sigterm", hasJob: true), at: .seconds(1)) == nil)
        #expect(watch.unitChanged(dead, at: .seconds(2)) == nil)
        // Started again by the operator, then crashed: that is a crash.
        #expect(watch.unitChanged(AppWatch.UnitState(activeState: "activating", subState: "start", hasJob: true), at: .seconds(3)) == nil)
        #expect(watch.unitChanged(running, at: .seconds(4)) == nil)
        #expect(watch.unitChanged(failed, at: .seconds(5)) == .recover(.appExited))
    }

    @Test func threeHeartbeatsMissedIsAHangCountedFromTheLastOne() {
        var watch = AppWatch(settings: AppSettings(unit: "a.service", heartbeat: .seconds(10)))
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
