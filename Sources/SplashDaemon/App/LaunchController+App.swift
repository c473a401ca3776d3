import Logging
public import SplashCore
import SplashPlugins
import SplashProtocol
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the daemon hands the controller for the app's life (design §14): `[app]`, the bus the
/// unit is reached through, and the way the `app` step tells the watch which job it queued.
public struct AppLink: Sendable {
    public var settings: AppSettings
    public var bus: any AppUnitBus
    /// Where the recoveries are kept across restarts of the daemon (nil: in memory only).
    public var ledger: AppRecoveryLedger?
    /// The `app` step's `AppStartPlugin` reports each start it queued here; the controller
    /// listens (`watchApp`), through its queue, ahead of the step's result.
    public let queued = AppStartRelay()

    public init(settings: AppSettings, bus: any AppUnitBus, ledger: AppRecoveryLedger? = nil) {
        self.settings = settings
        self.bus = bus
        self.ledger = ledger
    }
}

/// Carries the job id of each start the `app` step queued to the controller that watches the unit.
public final class AppStartRelay: Sendable {
    private let listener = Mutex<(@Sendable (UInt32) -> Void)?>(nil)

    public init() {}

    /// The controller's listener (set once it watches the unit).
    func listen(_ body: @escaping @Sendable (UInt32) -> Void) {
        listener.withLock { $0 = body }
    }

    /// The step queued a start with `job`.
    public func started(job: UInt32) {
        listener.withLock { $0 }?(job)
    }
}

extension LaunchController {
    // MARK: Watching the unit

    /// Starts feeding the unit's states into the loop; returns what stops it (nil without `[app]`).
    func watchApp() -> (@Sendable () -> Void)? {
        guard let app, let appLink else { return nil }
        appLink.queued.listen { job in self.submit(.appUnit(.startQueued(job: job))) }
        return appLink.bus.watch(app.unit) { event in self.submit(.appUnit(event)) }
    }

    func appUnitChanged(_ event: AppUnitEvent) {
        guard let actions = app?.unitEvent(event, at: now) else { return }
        perform(actions)
    }

    /// Carries out the app's actions, in order; a verdict at once, or (`deferringVerdict`) at
    /// the end of the turn, after the launch's own actions.
    func perform(_ actions: [AppLife.Action], deferringVerdict: Bool = false) {
        for action in actions {
            switch action {
            case .log(let level, let message): logger.log(level: level, "\(message)", metadata: ["unit": "\(app?.unit ?? "")"])
            case .verdict(let verdict): if deferringVerdict { self.verdict = verdict } else { carryOut(verdict) }
            case .retryAfterTheBus: retryAfterTheBus()
            }
        }
    }

    /// The watch is back on the bus: a launch stopped in `error` because the `app` step could not
    /// reach systemd (the bus was away for longer than the step's retries) is retried now, as
    /// if someone pressed Retry.
    private func retryAfterTheBus() {
        guard let error = machine.error, error.code == .stepFailed, let step = error.step,
            machine.graph.steps.first(where: { $0.id == step })?.plugin == BuiltinPlugin.appStart.name
        else { return }
        logger.notice("the system bus is back: retrying the app's start", metadata: ["unit": "\(app?.unit ?? "")", "step": "\(step)"])
        _ = change(.retry)
    }

    /// The heartbeat's deadline passed.
    func advanceApp() {
        guard let actions = app?.advance(to: now) else { return }
        perform(actions)
    }

    /// A launch finished: the watch begins, and an app already down is recovered (at the end of
    /// the turn).
    func launchFinished(at destination: Destination) {
        guard let actions = app?.launchFinished(at: destination, restoring: machine.restoring, at: now) else { return }
        perform(actions, deferringVerdict: true)
    }

    /// Starts the launch the watch asked for: over the app (after `finished`), or in place of the
    /// launch that is up (the app died before its first frame: that launch cannot finish).
    func carryOut(_ verdict: AppWatch.Verdict) {
        guard let app, let appLink else { return }
        if modes.mode == .shutdown {
            // The shutdown stops the app's unit: no crash, and no launch to bring it back.
            logger.notice("the app's unit \(app.unit) stopped during the shutdown: not a crash", metadata: ["unit": "\(app.unit)"])
            return
        }
        let window = DurationFormat.format(app.settings.restartWindow)
        let unit = app.unit
        var metadata: Logger.Metadata = ["unit": "\(unit)"]
        let reason: LaunchReason
        switch verdict {
        case .recover(let why), .crashLoop(let why): reason = why
        }
        metadata["reason"] = "\(reason.rawValue)"
        if reason == .appHung {
            metadata["event"] = "\(LaunchLogEvent.appHung.rawValue)"
            let heartbeat = app.settings.heartbeat.map(DurationFormat.format) ?? "?"
            logger.error("the app missed \(AppSettings.missedHeartbeats) heartbeats (every \(heartbeat)); killing \(unit)", metadata: metadata)
        } else {
            metadata["event"] = "\(LaunchLogEvent.appExited.rawValue)"
            let state = app.watch.unit.map(\.summary) ?? "its start failed"
            let back = machine.phase == .finished ? "the splash comes back" : "before the launch finished; it starts again"
            logger.error("the app's unit \(unit) stopped without being asked to (\(state)); \(back)", metadata: metadata)
        }
        switch verdict {
        case .recover:
            saveRecoveries(crashLoop: false)
            beginLaunch(reason)
        case .crashLoop:
            saveRecoveries(crashLoop: true)
            metadata["event"] = "\(LaunchLogEvent.appCrashLoop.rawValue)"
            let restarts = app.settings.maxRestarts
            logger.critical(
                "the app keeps stopping: \(restarts) restarts within \(window) already; not restarting it until Retry",
                metadata: metadata
            )
            if reason == .appHung {
                // Not restarted, but a hung app is not left running behind the error.
                let bus = appLink.bus
                let logger = self.logger
                Task {
                    do { try await bus.kill(unit) } catch { logger.notice("killing the app's unit: \(error)", metadata: ["unit": "\(unit)"]) }
                }
            }
            beginLaunch(reason, holding: crashLoopError(app))
        }
    }

    // MARK: Whose first frame

    /// Why `complete` of `step` from `sender` does not count: it comes from the app process this
    /// launch replaces, or a child of it. A hung app that still answers (its heartbeats late, not
    /// stopped) completed the recovery launch's `first-frame` before its app step killed it, and the
    /// splash left before the new process drew. nil: it counts.
    func replacedAppSent(_ step: String, from sender: pid_t?) -> ProtocolError? {
        guard let app, let replaced = app.replaced, replaced > 1, let sender, sender > 1,
            ProcessAncestry.descends(sender, from: pid_t(replaced))
        else { return nil }
        logger.notice(
            "refused complete \(LogExcerpt.of(step)) from pid \(sender): it belongs to the app process \(replaced) this launch replaces",
            metadata: ["unit": "\(app.unit)"]
        )
        return ProtocolError(
            code: .permissionDenied,
            message: "complete from the app process this launch replaces (pid \(replaced)) does not count: the app started for this launch completes it"
        )
    }

    // MARK: The count across restarts

    /// Reads the recoveries an earlier run of the daemon left; returns the error to hold the first
    /// launch in when the app was held in a crash loop then (not restarted until Retry).
    func restoreRecoveries() -> ErrorInfo? {
        guard let app, let ledger = appLink?.ledger else { return nil }
        let (entry, problem) = ledger.load(unit: app.unit)
        if let problem { logger.warning("\(problem)", metadata: ["unit": "\(app.unit)"]) }
        guard let entry else { return nil }
        let wall = ledger.wallClockMs()
        let now = self.now
        self.app?.restore(recoveries: entry.recoveries.map { now - .milliseconds(max(0, wall - $0)) })
        guard entry.crashLoop else {
            if !entry.recoveries.isEmpty {
                logger.info("\(entry.recoveries.count) recent recoveries of the app count towards max_restarts", metadata: ["unit": "\(app.unit)"])
            }
            return nil
        }
        logger.warning(
            "the app was held in a crash loop when splashd stopped: not restarting it until Retry",
            metadata: ["unit": "\(app.unit)", "event": "\(LaunchLogEvent.appCrashLoop.rawValue)"]
        )
        return crashLoopError(app)
    }

    /// Writes the recoveries counted now, and whether the app is held in a crash loop.
    func saveRecoveries(crashLoop: Bool) {
        guard let app, let ledger = appLink?.ledger else { return }
        let wall = ledger.wallClockMs()
        let now = self.now
        let entry = AppRecoveryLedger.Entry(
            unit: app.unit, recoveries: app.watch.recoveries.map { wall - (now - $0).milliseconds }, crashLoop: crashLoop
        )
        if let problem = ledger.save(entry) {
            logger.warning("the app's recoveries are not kept across restarts: \(problem)", metadata: ["unit": "\(app.unit)"])
        }
    }

    private func crashLoopError(_ app: AppLife) -> ErrorInfo {
        let restarts = app.settings.maxRestarts
        let window = DurationFormat.format(app.settings.restartWindow)
        let step = machine.graph.steps.first { $0.plugin == BuiltinPlugin.appStart.name }?.id
        return ErrorInfo(
            code: .appCrashLoop, message: ErrorInfo.userMessage(for: .appCrashLoop) ?? "The app keeps stopping", step: step,
            actions: [.retry], detail: "\(app.unit) stopped more than \(restarts) times within \(window)"
        )
    }

    // MARK: Commands from the app

    /// `alive`: the app's heartbeat.
    func alive() -> Result<Void, ProtocolError> {
        guard app != nil else { return .failure(Self.noApp("alive")) }
        app?.alive(at: now)
        return .success(())
    }

    /// `route`: where the app is now, for a launch that brings it back.
    func appReported(route written: String) -> Result<Void, ProtocolError> {
        guard app != nil else { return .failure(Self.noApp("route")) }
        if let refusal = app?.report(route: written) { return .failure(refusal) }
        return .success(())
    }

    static func noApp(_ command: String) -> ProtocolError {
        ProtocolError(code: .unavailable, message: "\(command) needs an [app] section in the configuration")
    }

    /// Where the app was, checked again: a route the configuration no longer routes to is dropped
    /// (and logged). The screen is the last launch's; `Destination.restoring` keeps the route only
    /// when the new launch decides that same screen (not once the session is gone).
    func restoration() -> Destination.Restoration? {
        guard let app else { return nil }
        let graph = machine.graph
        let (restoration, actions) = app.restoration { Self.routes($0, in: graph) }
        perform(actions)
        return restoration
    }

    /// Whether `graph`'s quick-action step routes to `route`: one of its `routes` patterns or an
    /// action's route. Without such a step no route is known, so none is restored.
    static func routes(_ route: String, in graph: StepGraph) -> Bool {
        guard let step = graph.steps.first(where: { $0.plugin == BuiltinPlugin.quickAction.name }),
            let options = try? step.builtinOptions(QuickActionOptions.self)
        else { return false }
        if options.routes.contains(where: { RoutePath.matches(route, pattern: $0) }) { return true }
        return options.actions.values.contains { $0.route.map(RoutePath.normalized) == route }
    }
}
