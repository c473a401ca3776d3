import Foundation
import Logging
import NIOCore
import NIOPosix
import SplashCore
import SplashDaemon
import SplashPlugins
import Synchronization
import Testing
import TestSupport

/// systemd's side of the app's unit, played by the test: it sends the unit's states and records
/// the calls the daemon makes.
final class FakeAppBus: AppUnitBus {
    private let made = Mutex<[String]>([])
    private let deliver = Mutex<(@Sendable (AppUnitEvent) -> Void)?>(nil)

    /// Events go into the controller's queue at once, in order with the test's commands.
    func watch(_ unit: String, onEvent: @escaping @Sendable (AppUnitEvent) -> Void) -> @Sendable () -> Void {
        deliver.withLock { $0 = onEvent }
        return {}
    }

    func start(_ unit: String, restart: Bool) async throws(AppUnitError) {
        made.withLock { $0.append(restart ? "restart \(unit)" : "start \(unit)") }
    }

    func kill(_ unit: String) async throws(AppUnitError) {
        made.withLock { $0.append("kill \(unit)") }
    }

    var calls: [String] { made.withLock { $0 } }

    func send(_ active: String, _ sub: String, job: Bool = false) {
        let state = AppUnitEvent.state(AppWatch.UnitState(activeState: active, subState: sub, hasJob: job))
        deliver.withLock { $0 }?(state)
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

/// SPEC §14 on the controller, with a fake bus and the test clock: every recovery, the crash
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
            if appUp { bus.send("active", "running") }
            h.board.complete(step: "first-frame")
            let dismissing = await h.next { $0.launch == launch && $0.phase == .dismissing }
            h.clock.advance(to: h.clock.now.offset + .milliseconds(300))
            _ = dismissing
            return await h.next { $0.launch == launch && $0.phase == .finished }
        }
    }

    func rig(
        heartbeat: Duration? = nil, maxRestarts: Int = 5, auth: (@Sendable () -> Facts)? = nil, routes: [String] = []
    ) throws -> Rig {
        let bus = FakeAppBus()
        let app = AppLink(
            settings: AppSettings(unit: unit, heartbeat: heartbeat, maxRestarts: maxRestarts, restartWindow: .seconds(300)),
            bus: bus
        )
        var plugins: [String: any StepPlugin] = ["quick-action": ScriptedPlugin { _ in [:] }]
        if let auth { plugins["auth-refresh"] = ScriptedPlugin { _ in auth() } }
        let h = try ControllerHarness(try steps(auth: auth != nil, routes: routes), settings: settings, plugins: plugins, app: app)
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
        let r = try rig()
        _ = await r.finish("launch-1")
        r.bus.send("active", "running")
        // `systemctl stop`: the stop job is seen while the unit goes down, and is gone when it is down.
        r.bus.send("deactivating", "stop-sigterm", job: true)
        r.bus.send("inactive", "dead")
        // Inputs are applied in order: had the stop been taken for a crash, launch-2 would be app-exited.
        _ = await r.h.controller.handle(.relaunch)
        let next = await r.h.next { $0.launch == "launch-2" }
        #expect(next?.reason == .relaunch)
        await r.h.stop()
    }

    @Test func anAppThatDiesWhileTheSplashIsUpIsTheLaunchsBusiness() async throws {
        let r = try rig()
        _ = await r.h.next { $0.phase == .loading }
        r.bus.send("failed", "failed")
        // Not armed yet: no recovery launch; but at `finished` the unit is down, so it is recovered then.
        let finished = await r.finish("launch-1", appUp: false)
        #expect(finished?.reason == .boot)
        let back = await r.h.next { $0.launch == "launch-2" }
        #expect(back?.reason == .appExited)
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
        // A route that is not a route at all is refused.
        #expect(!(await accepted(.route("a//b"), by: r.h.controller)))
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
        let h = try ControllerHarness(
            try steps(auth: true, routes: ["orders/*"]), settings: settings,
            plugins: [
                "auth-refresh": ScriptedPlugin { _ in ["authenticated": true] },
                "quick-action": ScriptedPlugin { _ in pending.withLock { $0 } },
            ],
            app: AppLink(settings: AppSettings(unit: unit), bus: r.bus)
        )
        await r.h.stop()
        let rig = Rig(h: h, bus: r.bus, clock: h.clock)
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
