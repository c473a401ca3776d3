import Foundation
import Logging
import NIOCore
import NIOPosix
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashDaemon
import SplashPlugins
import SplashProtocol
import Synchronization
import Testing
import TestSupport

/// systemd's side of the app's unit, played by the test: it sends the unit's states and records
/// the calls the daemon makes.
final class FakeAppBus: AppUnitBus {
    private let made = Mutex<[String]>([])
    private let deliver = Mutex<(@Sendable (AppUnitEvent) -> Void)?>(nil)
    private let jobs = Mutex<UInt32>(100)
    private let starts: AsyncStream<UInt32>
    private let started: AsyncStream<UInt32>.Continuation

    init() {
        (starts, started) = AsyncStream.makeStream(of: UInt32.self)
    }

    /// Events go into the controller's queue at once, in order with the test's commands.
    func watch(_ unit: String, onEvent: @escaping @Sendable (AppUnitEvent) -> Void) -> @Sendable () -> Void {
        deliver.withLock { $0 = onEvent }
        return {}
    }

    /// While set, calls fail as they do with the system bus away.
    let away = Mutex(false)

    /// Each start or restart is a job, numbered from 101, whose end the test sends (`end`).
    func start(_ unit: String, restart: Bool) async throws(AppUnitError) -> UInt32 {
        made.withLock { $0.append(restart ? "restart \(unit)" : "start \(unit)") }
        if away.withLock({ $0 }) {
            throw AppUnitError(code: -111, message: "connecting to the system bus: Connection refused")
        }
        let job = jobs.withLock { $0 += 1; return $0 }
        started.yield(job)
        return job
    }

    func kill(_ unit: String) async throws(AppUnitError) {
        made.withLock { $0.append("kill \(unit)") }
    }

    var calls: [String] { made.withLock { $0 } }

    /// The job of the next start or restart the daemon queues (waits for it).
    func nextStart() async -> UInt32 {
        for await job in starts { return job }
        return 0
    }

    func lose() {
        deliver.withLock { $0 }?(.lost("connecting to the system bus: Connection refused"))
    }

    func send(_ active: String, _ sub: String, job: UInt32 = 0, mainPID: UInt32 = 0) {
        let state = AppUnitEvent.state(AppWatch.UnitState(activeState: active, subState: sub, job: job, mainPID: mainPID))
        deliver.withLock { $0 }?(state)
    }

    /// systemd's JobRemoved for `job`.
    func end(_ job: UInt32, _ result: String = "done") {
        deliver.withLock { $0 }?(.jobEnded(job: job, result: result))
    }

    /// What systemd sends when the daemon's start of the app (the next one) is done: the unit
    /// running with the job, JobRemoved, the unit running.
    func startDone() async {
        let job = await nextStart()
        send("active", "running", job: job)
        end(job)
        send("active", "running")
    }
}

/// Records the events broadcast to subscribers.
final class EventRecorder: StateSubscriber {
    private let lines: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (lines, continuation) = AsyncStream.makeStream(of: String.self)
    }

    func deliver(state: StateLine) {}

    func deliver(event: ByteBuffer) {
        continuation.yield(String(buffer: event).trimmingCharacters(in: .newlines))
    }

    func next() async -> String? {
        for await line in lines { return line }
        return nil
    }
}

/// Whether the controller carried out `command`.
func accepted(_ command: Request.Command, by controller: LaunchController<TestClock>) async -> Bool {
    if case .success = await controller.handle(command) { true } else { false }
}

/// Design §14 on the controller, with a fake bus and the test clock: every recovery, the crash
/// loop, the heartbeat, restoration and resume.
@Suite(.timeLimit(.minutes(10))) struct AppLifeTests {
    let settings = SplashSettings(
        minDisplay: .zero, slowAfter: .seconds(1), timeout: .seconds(10), exitAnimation: .milliseconds(300), allowOffline: true
    )
    let unit = "kiosk-app.service"

    /// The app step, the app's first frame, and optionally a sign-in and a quick-action step.
    func steps(auth: Bool = false, routes: [String] = []) throws -> [StepSpec] {
        var steps = [
            StepSpec(id: "app", plugin: "app-start", builtin: .appStart),
            StepSpec(id: "first-frame", plugin: "signal"),
        ]
        if auth { steps.append(StepSpec(id: "auth-refresh", plugin: "auth-refresh")) }
        if !routes.isEmpty {
            var options = QuickActionOptions()
            options.scheme = "kiosk"
            options.routes = routes
            steps.append(StepSpec(id: "quick-action", plugin: "quick-action", critical: false, builtin: .quickAction(options)))
        }
        return steps
    }

    struct Rig {
        let h: ControllerHarness
        let bus: FakeAppBus
        let clock: TestClock

        /// The app comes up (unless `appUp` is false), completes its first frame, and the exit
        /// animation is waited out: `finished`.
        func finish(_ launch: String, appUp: Bool = true) async -> StateMessage? {
            _ = await h.next { $0.launch == launch && $0.steps.first { $0.id == "first-frame" }?.status == .running }
            if appUp { await bus.startDone() }
            h.board.complete(step: "first-frame")
            let dismissing = await h.next { $0.launch == launch && $0.phase == .dismissing }
            h.clock.advance(to: h.clock.now.offset + .milliseconds(300))
            _ = dismissing
            return await h.next { $0.launch == launch && $0.phase == .finished }
        }
    }

    func rig(
        heartbeat: Duration? = nil, maxRestarts: Int = 5, auth: (@Sendable () -> Facts)? = nil, routes: [String] = [],
        logger: Logger? = nil, ledger: AppRecoveryLedger? = nil
    ) throws -> Rig {
        let bus = FakeAppBus()
        let app = AppLink(
            settings: AppSettings(unit: unit, heartbeat: heartbeat, maxRestarts: maxRestarts, restartWindow: .seconds(300)),
            bus: bus, ledger: ledger
        )
        var plugins: [String: any StepPlugin] = ["quick-action": ScriptedPlugin { _ in [:] }]
        if let auth { plugins["auth-refresh"] = ScriptedPlugin { _ in auth() } }
        let h = try ControllerHarness(try steps(auth: auth != nil, routes: routes), settings: settings, plugins: plugins, app: app, logger: logger)
        return Rig(h: h, bus: bus, clock: h.clock)
    }

    @Test func anAppThatExitsAfterFinishedBringsTheSplashBackAndIsRestarted() async throws {
        let r = try rig()
        let first = await r.h.next { $0.phase == .loading }
        #expect(first?.reason == .boot)
        #expect(await r.finish("launch-1")?.reason == .boot)
        #expect(r.bus.calls == ["start kiosk-app.service"], "a boot only queues a start: a no-op when systemd started the app")
        r.bus.send("active", "running")
        r.bus.send("failed", "failed")
        let back = await r.h.next { $0.launch == "launch-2" }
        #expect(back?.phase == .loading)
        #expect(back?.reason == .appExited)
        let finished = await r.finish("launch-2")
        #expect(finished?.reason == .appExited)
        #expect(r.bus.calls == ["start kiosk-app.service", "restart kiosk-app.service"])
        await r.h.stop()
    }

    @Test func aStopSomeoneAskedForIsNotACrash() async throws {
        let r = try rig(heartbeat: .seconds(10))
        _ = await r.finish("launch-1")
        // `systemctl stop`, as systemd 252 sends it: the unit down with the stop job, the job's
        // JobRemoved, the unit down without it.
        r.bus.send("inactive", "dead", job: 7)
        r.bus.end(7)
        r.bus.send("inactive", "dead")
        // A stopped app has no heartbeat to miss: no hang, however long it stays stopped (found
        // under systemd: killed and started again 2.6 s after the stop).
        r.clock.advance(to: r.clock.now.offset + .seconds(600))
        // Inputs are applied in order: had the stop been taken for a crash or a hang, launch-2
        // would be app-exited or app-hung.
        _ = await r.h.controller.handle(.relaunch)
        let next = await r.h.next { $0.launch == "launch-2" }
        #expect(next?.reason == .relaunch)
        #expect(!r.bus.calls.contains { $0.hasPrefix("kill") || $0.hasPrefix("restart") }, "\(r.bus.calls)")
        await r.h.stop()
    }

    /// Found under systemd 252: an app that died at once on every start died during the recovery
    /// launch, unseen; that launch waited 30 s for `first-frame` and showed `step-failed`, every
    /// 30 s, and `app-crash-loop` never came.
    @Test func anAppThatDiesBeforeItsFirstFrameStartsTheLaunchAgainAndEndsInACrashLoop() async throws {
        let r = try rig(maxRestarts: 2)
        _ = await r.h.next { $0.launch == "launch-1" && $0.phase == .loading }
        // The start of launch-1 is done, then the app dies before its first frame: launch-2 at once.
        await r.bus.startDone()
        r.bus.send("failed", "failed")
        let second = await r.h.next { $0.launch == "launch-2" }
        #expect(second?.phase == .loading)
        #expect(second?.reason == .appExited)
        await r.bus.startDone()
        r.bus.send("failed", "failed")
        #expect(await r.h.next { $0.launch == "launch-3" }?.reason == .appExited)
        await r.bus.startDone()
        r.bus.send("failed", "failed")
        let loop = await r.h.next { $0.launch == "launch-4" && $0.phase == .error }
        #expect(loop?.error?.code == .appCrashLoop)
        #expect(r.bus.calls == ["start kiosk-app.service", "restart kiosk-app.service", "restart kiosk-app.service"])
        await r.h.stop()
    }

    /// Found under systemd 252: with dbus stopped, the recovery's `app` step failed ("Connection
    /// refused") and the kiosk stayed in `step-failed` after the bus was back, until someone
    /// pressed Retry.
    @Test func aStartTheBusBlockedIsRetriedWhenTheWatchIsBack() async throws {
        let r = try rig()
        _ = await r.finish("launch-1")
        r.bus.away.withLock { $0 = true }
        r.bus.lose()
        r.bus.send("failed", "failed")
        let stuck = await r.h.next { $0.launch == "launch-2" && $0.phase == .error }
        #expect(stuck?.error?.code == .stepFailed)
        #expect(stuck?.error?.step == "app")
        r.bus.away.withLock { $0 = false }
        // The watch lost the bus again, and is back: its first state.
        r.bus.lose()
        r.bus.send("failed", "failed")
        let again = await r.h.next { $0.launch == "launch-2" && $0.phase == .loading }
        #expect(again?.reason == .appExited)
        #expect(await r.finish("launch-2")?.phase == .finished)
        #expect(r.bus.calls == ["start kiosk-app.service", "restart kiosk-app.service", "restart kiosk-app.service"])
        await r.h.stop()
    }

    @Test func theUnitsStatesBeforeItsStartEndedAreNotACrash() async throws {
        let r = try rig()
        _ = await r.h.next { $0.phase == .loading }
        // Before the app step's job ended (the unit not started yet, or the old app's end).
        r.bus.send("failed", "failed")
        r.bus.send("inactive", "dead")
        let finished = await r.finish("launch-1")
        #expect(finished?.reason == .boot)
        _ = await r.h.controller.handle(.relaunch)
        #expect(await r.h.next { $0.launch == "launch-2" }?.reason == .relaunch)
        await r.h.stop()
    }

    @Test func threeMissedHeartbeatsKillTheAppAndRestartIt() async throws {
        let r = try rig(heartbeat: .seconds(10))
        _ = await r.finish("launch-1")
        r.bus.send("active", "running")
        let armedAt = r.clock.now.offset
        // A heartbeat at 20 s moves the deadline to 50 s.
        r.clock.advance(to: armedAt + .seconds(20))
        #expect(await accepted(.alive, by: r.h.controller))
        // The timer armed for 30 s (before the heartbeat) wakes the loop at 45 s: no hang, and it
        // is armed again for 50 s (a launch begun at 45 s would wait for 46 s, its slow_after).
        r.clock.advance(to: armedAt + .seconds(45))
        while !r.clock.pendingDeadlines.contains(armedAt + .seconds(50)) { await Task.yield() }
        r.clock.advance(to: armedAt + .seconds(50))
        let hung = await r.h.next { $0.launch == "launch-2" }
        #expect(hung?.reason == .appHung)
        #expect(hung?.elapsedMs == 0)
        _ = await r.finish("launch-2")
        #expect(r.bus.calls == ["start kiosk-app.service", "kill kiosk-app.service", "restart kiosk-app.service"])
        await r.h.stop()
    }

    /// Found under systemd 252: a hung app that still answered (its heartbeats late) completed
    /// the `app-hung` launch's first frame before its app step killed it, and the splash left
    /// before the new process drew.
    @Test func aCompleteFromTheHungAppThisLaunchReplacesDoesNotCount() async throws {
        let capture = LogCapture()
        let r = try rig(heartbeat: .seconds(10), logger: capture.logger())
        _ = await r.finish("launch-1")
        // systemd says the app's main process is this test's own; the controller has heard it
        // before the heartbeat is missed (else the launch replaces no process it knows).
        r.bus.send("active", "running", mainPID: UInt32(getpid()))
        while capture.records(containing: "main pid \(getpid())").isEmpty { await Task.yield() }
        r.clock.advance(to: r.clock.now.offset + .seconds(30))
        _ = await r.h.next { $0.launch == "launch-2" && $0.steps.first { $0.id == "first-frame" }?.status == .running }
        // Another live process: with no descriptor of the test's (an inherited stdout kept the test
        // runner waiting for its end, 600 s), and killed and reaped when the test ends.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["600"]
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        for sender in [getpid(), child.processIdentifier] {
            guard case .failure(let error) = await r.h.controller.handle(.complete(step: "first-frame"), from: sender) else {
                Issue.record("a complete from pid \(sender) of the replaced app counted")
                continue
            }
            #expect(error.code == .permissionDenied)
        }
        #expect(await r.h.next { $0.launch == "launch-2" }?.steps.first { $0.id == "first-frame" }?.status == .running)
        // Any other process's complete counts.
        if case .failure(let error) = await r.h.controller.handle(.complete(step: "first-frame"), from: nil) {
            Issue.record("refused: \(error)")
        }
        await r.h.stop()
    }

    @Test func aCrashLoopHoldsTheSplashInErrorUntilRetryWhichStartsTheCountAgain() async throws {
        let r = try rig(maxRestarts: 2)
        _ = await r.finish("launch-1")
        for launch in ["launch-2", "launch-3"] {
            r.bus.send("active", "running")
            r.bus.send("failed", "failed")
            #expect(await r.h.next { $0.launch == launch }?.reason == .appExited)
            _ = await r.finish(launch)
        }
        r.bus.send("active", "running")
        r.bus.send("failed", "failed")
        let loop = await r.h.next { $0.launch == "launch-4" && $0.phase == .error }
        #expect(loop?.reason == .appExited)
        #expect(loop?.error?.code == .appCrashLoop)
        #expect(loop?.error?.message == "The app keeps stopping")
        #expect(loop?.error?.actions == [.retry])
        #expect(loop?.steps.allSatisfy { $0.status == .pending } == true, "nothing is restarted")
        #expect(r.bus.calls.filter { $0.hasPrefix("restart") }.count == 2)
        // continue-offline is not offered, and refused.
        #expect(!(await accepted(.continueOffline, by: r.h.controller)))
        #expect(await accepted(.retry, by: r.h.controller))
        _ = await r.finish("launch-4")
        #expect(r.bus.calls.filter { $0.hasPrefix("restart") }.count == 3)
        // The count started again: the next crash is a recovery, not a loop.
        r.bus.send("active", "running")
        r.bus.send("failed", "failed")
        let after = await r.h.next { $0.launch == "launch-5" }
        #expect(after?.phase == .loading)
        await r.h.stop()
    }

    /// Found under systemd 252: with 2 of 2 recoveries used, a restart of splashd and a crash was
    /// recovered (two more allowed), and a restart in `app-crash-loop` left the error and started
    /// the app: an app whose crashes take splashd down too was never held.
    @Test func theCountAndACrashLoopOutliveARestartOfTheDaemon() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let wall = Mutex<Int64>(1_800_000_000_000)
        let ledger = AppRecoveryLedger(stateDirectory: directory.path, wallClockMs: { wall.withLock { $0 } })
        var r = try rig(maxRestarts: 2, ledger: ledger)
        _ = await r.finish("launch-1")
        for launch in ["launch-2", "launch-3"] {
            r.bus.send("failed", "failed")
            #expect(await r.h.next { $0.launch == launch }?.reason == .appExited)
            _ = await r.finish(launch)
        }
        await r.h.stop()
        #expect(ledger.load(unit: unit).entry?.recoveries.count == 2)
        // splashd again, a minute later: the next crash is the third within the window.
        wall.withLock { $0 += 60_000 }
        r = try rig(maxRestarts: 2, ledger: ledger)
        _ = await r.finish("launch-1")
        r.bus.send("failed", "failed")
        let loop = await r.h.next { $0.launch == "launch-2" && $0.phase == .error }
        #expect(loop?.error?.code == .appCrashLoop)
        await r.h.stop()
        // And again: held in the crash loop from the first launch on, the app not started.
        r = try rig(maxRestarts: 2, ledger: ledger)
        let held = await r.h.next { $0.launch == "launch-1" }
        #expect(held?.phase == .error)
        #expect(held?.error?.code == .appCrashLoop)
        #expect(held?.error?.actions == [.retry])
        #expect(r.bus.calls.isEmpty)
        // Retry clears it, on disk too.
        #expect(await accepted(.retry, by: r.h.controller))
        #expect(await r.finish("launch-1")?.phase == .finished)
        #expect(ledger.load(unit: unit).entry == AppRecoveryLedger.Entry(unit: unit))
        await r.h.stop()
        // Recoveries older than the window no longer count; another unit's record is not this one's.
        wall.withLock { $0 += 301_000 }
        #expect(ledger.save(AppRecoveryLedger.Entry(unit: unit, recoveries: [1_800_000_000_000, 1_800_000_001_000])) == nil)
        r = try rig(maxRestarts: 2, ledger: ledger)
        _ = await r.finish("launch-1")
        r.bus.send("failed", "failed")
        #expect(await r.h.next { $0.launch == "launch-2" }?.phase == .loading)
        await r.h.stop()
        #expect(ledger.load(unit: "other.service").entry == nil)
    }

    @Test func anUnreadableRecoveryRecordCountsAsNone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ledger = AppRecoveryLedger(stateDirectory: directory.path)
        try "{\"unit\": 3".write(toFile: ledger.path, atomically: true, encoding: .utf8)
        let (entry, problem) = ledger.load(unit: unit)
        #expect(entry == nil)
        #expect(problem?.contains("is not a recovery record") == true)
        // A record longer than any this daemon writes is read no further than one it would write.
        let long = (0..<5000).map(String.init).joined(separator: ",")
        try "{\"unit\":\"\(unit)\",\"recoveries\":[\(long)],\"crash_loop\":false}".write(toFile: ledger.path, atomically: true, encoding: .utf8)
        #expect(ledger.load(unit: unit).entry?.recoveries.count == 1000)
    }

    @Test func aRecoveryGoesBackToTheRouteTheAppReportedWhenTheConfigStillRoutesThere() async throws {
        let r = try rig(auth: { ["authenticated": true] }, routes: ["orders/*"])
        _ = await r.finish("launch-1")
        #expect(await accepted(.route("/orders/42"), by: r.h.controller))
        r.bus.send("failed", "failed")
        let restored = await r.finish("launch-2")
        #expect(restored?.destination == Destination(screen: .home, route: "orders/42"))
        // A route the configuration does not route to is dropped.
        #expect(await accepted(.route("admin/users"), by: r.h.controller))
        r.bus.send("active", "running")
        r.bus.send("failed", "failed")
        let dropped = await r.finish("launch-3")
        #expect(dropped?.destination == Destination(screen: .home))
        // A route that is not a route at all is refused, and so are a percent-encoded `..` and a
        // route longer than any state reader's line could carry.
        for bad in ["a//b", "orders/%2e%2e/x", "orders/" + String(repeating: "a", count: 65_400)] {
            guard case .failure(let error) = await r.h.controller.handle(.route(bad)) else {
                Issue.record("route \(bad.prefix(40)) accepted")
                continue
            }
            #expect(error.code == .badRequest)
            #expect(error.message.utf8.count < 500, "the refusal quotes an excerpt")
        }
        await r.h.stop()
    }

    /// An app reports where it is as soon as it runs, often while the splash is still up.
    @Test func aRouteReportedBeforeTheLaunchFinishedIsWhereTheAppIs() async throws {
        let r = try rig(auth: { ["authenticated": true] }, routes: ["orders/*"])
        _ = await r.h.next { $0.phase == .loading }
        #expect(await accepted(.route("orders/7"), by: r.h.controller))
        _ = await r.finish("launch-1")
        r.bus.send("failed", "failed")
        #expect(await r.finish("launch-2")?.destination == Destination(screen: .home, route: "orders/7"))
        // The restored launch went there; a route reported in an earlier launch is not kept past
        // a launch that went elsewhere (the session gone: login).
        await r.h.stop()
    }

    @Test func aSignedInRouteIsNotRestoredOnceTheSessionIsGone() async throws {
        let signedIn = Mutex(true)
        let r = try rig(auth: { ["authenticated": .bool(signedIn.withLock { $0 })] }, routes: ["orders/*"])
        _ = await r.finish("launch-1")
        #expect(await accepted(.route("orders/42"), by: r.h.controller))
        signedIn.withLock { $0 = false }
        r.bus.send("failed", "failed")
        let finished = await r.finish("launch-2")
        #expect(finished?.destination == Destination(screen: .login))
        await r.h.stop()
    }

    @Test func aResumeWithTheSessionValidPublishesNothingAndDeliversNothingVisible() async throws {
        let checks = Mutex(0)
        let r = try rig(auth: {
            checks.withLock { $0 += 1 }
            return ["authenticated": true]
        })
        let finished = await r.finish("launch-1")
        #expect(await accepted(.resume, by: r.h.controller))
        while checks.withLock({ $0 }) < 2 { await Task.yield() }
        _ = await r.h.controller.handle(.relaunch)
        let next = await r.h.next { $0.launch == "launch-2" }
        #expect(next?.reason == .relaunch)
        #expect(next?.seq == (finished?.seq ?? 0) + 1, "the resume published no state")
        await r.h.stop()
    }

    /// Found probing the app's life: 500 resumes wrote 1,500 journal records, enough for journald
    /// to drop others.
    @Test func repeatedResumesAreFoldedInTheLog() async throws {
        let capture = LogCapture()
        let checks = Mutex(0)
        let r = try rig(auth: {
            checks.withLock { $0 += 1 }
            return ["authenticated": true]
        }, logger: capture.logger())
        _ = await r.finish("launch-1")
        // 50 checks, each run to its end (a resume while a check runs is ignored).
        for round in 1...50 {
            while checks.withLock({ $0 }) <= round {
                #expect(await accepted(.resume, by: r.h.controller))
                await Task.yield()
            }
        }
        let logged = capture.records.filter { $0.text.contains("event=resume") || $0.text.contains("launch=resume-") }
        #expect(logged.count <= 5 * 3, "\(logged.count) records for 50 resumes: 3 for each of the first 5")
        // A minute on, the next resume is logged, with how many were not.
        r.clock.advance(to: r.clock.now.offset + .seconds(61))
        #expect(await accepted(.resume, by: r.h.controller))
        let folded = capture.records(.notice, containing: "more resumes were not logged")
        #expect(folded.count == 1)
        #expect(folded.first?.message.hasPrefix("resume: ") == true)
        await r.h.stop()
    }

    @Test func aResumeThatFindsTheSessionGoneShowsTheSplashAndGoesToLogin() async throws {
        let signedIn = Mutex(true)
        let r = try rig(auth: { ["authenticated": .bool(signedIn.withLock { $0 })] })
        let finished = await r.finish("launch-1")
        #expect(finished?.destination?.screen == .home)
        signedIn.withLock { $0 = false }
        #expect(await accepted(.resume, by: r.h.controller))
        let shown = await r.h.next { $0.launch == "launch-2" }
        #expect(shown?.reason == .resume)
        #expect(shown?.phase == .loading)
        let end = await r.finish("launch-2")
        #expect(end?.destination?.screen == .login)
        await r.h.stop()
    }

    @Test func aResumeDeliversThePendingQuickActionAsAnEventWithoutTheSplash() async throws {
        let r = try rig(auth: { ["authenticated": true] }, routes: ["orders/*"])
        // The quick-action step takes what is pending; at the resume, a spooled action.
        let pending = Mutex<Facts>([:])
        let bus = FakeAppBus()
        let h = try ControllerHarness(
            try steps(auth: true, routes: ["orders/*"]), settings: settings,
            plugins: [
                "auth-refresh": ScriptedPlugin { _ in ["authenticated": true] },
                "quick-action": ScriptedPlugin { _ in pending.withLock { $0 } },
            ],
            app: AppLink(settings: AppSettings(unit: unit), bus: bus)
        )
        await r.h.stop()
        let rig = Rig(h: h, bus: bus, clock: h.clock)
        let finished = await rig.finish("launch-1")
        let events = EventRecorder()
        _ = h.broadcaster.subscribe(events)
        pending.withLock { $0 = ["action": "order-help", "route": "orders/42", "sheet": "help"] }
        #expect(await accepted(.resume, by: h.controller))
        let event = await events.next()
        #expect(event == #"{"type":"event","event":"action","name":"order-help","route":"orders/42","sheet":"help"}"#)
        _ = await h.controller.handle(.relaunch)
        #expect(await h.next { $0.launch == "launch-2" }?.seq == (finished?.seq ?? 0) + 1, "the resume published no state")
        await h.stop()
    }

    /// The check's quick-action step takes the spooled link; when the session turns out gone, the
    /// visible launch it starts must still get it (the spool file is gone by then).
    @Test func aResumeThatShowsTheSplashHandsTheSpooledLinkToItsLaunch() async throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let spool = state.path + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let builtins = BuiltinServices(stateDirectory: state.path, eventLoopGroup: group)
        var options = QuickActionOptions()
        options.scheme = "kiosk"
        options.routes = ["orders/*"]
        options.spool = spool
        let signedIn = Mutex(true)
        let bus = FakeAppBus()
        let h = try ControllerHarness(
            [
                StepSpec(id: "app", plugin: "app-start", builtin: .appStart),
                StepSpec(id: "first-frame", plugin: "signal"),
                StepSpec(id: "auth-refresh", plugin: "auth-refresh"),
                StepSpec(id: "quick-action", plugin: "quick-action", critical: false, builtin: .quickAction(options)),
            ],
            settings: settings,
            plugins: [
                "auth-refresh": ScriptedPlugin { _ in ["authenticated": .bool(signedIn.withLock { $0 })] },
                "quick-action": try #require(builtins.plugins()["quick-action"]),
            ],
            app: AppLink(settings: AppSettings(unit: unit), bus: bus), builtins: builtins
        )
        let rig = Rig(h: h, bus: bus, clock: h.clock)
        #expect(await rig.finish("launch-1")?.destination == Destination(screen: .home))
        try "kiosk://orders/42\n".write(toFile: spool + "/1", atomically: true, encoding: .utf8)
        signedIn.withLock { $0 = false }
        #expect(await accepted(.resume, by: h.controller))
        let shown = await rig.finish("launch-2")
        #expect(shown?.reason == .resume)
        #expect(shown?.destination == Destination(screen: .login, route: "orders/42"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool).isEmpty)
        await h.stop()
        try await group.shutdownGracefully()
    }

    @Test func aliveAndRouteNeedAnAppSection() async throws {
        let h = try ControllerHarness([StepSpec(id: "first-frame", plugin: "signal")], settings: settings)
        #expect(!(await accepted(.alive, by: h.controller)))
        #expect(!(await accepted(.route("x"), by: h.controller)))
        await h.stop()
    }
}
