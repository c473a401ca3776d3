import Logging
public import SplashCore
import SplashPlugins

#if canImport(Glibc)
import Glibc
#endif

/// What the daemon hands the controller for the app's life (SPEC §14): `[app]`, and the bus the
/// unit is reached through.
public struct AppLink: Sendable {
    public var settings: AppSettings
    public var bus: any AppUnitBus

    public init(settings: AppSettings, bus: any AppUnitBus) {
        self.settings = settings
        self.bus = bus
    }
}

/// The controller's part of the app's life.
struct AppLife: Sendable {
    var watch: AppWatch
    let bus: any AppUnitBus
    /// Where the app said it is (`route`) since the current launch began (an app reports where it
    /// is as soon as it runs, often before the launch has finished); from `finished` on, the
    /// launch's own route if it had one.
    var route: String?
    /// The screen the last finished launch sent the app to.
    var screen: Destination.Screen?
    /// The watch lost the bus: logged once until it is back.
    var busLost = false

    init(link: AppLink) {
        watch = AppWatch(settings: link.settings)
        bus = link.bus
    }

    var unit: String { watch.settings.unit }
}

extension LaunchController {
    // MARK: Watching the unit

    /// Starts feeding the unit's states into the loop; returns what stops it (nil without `[app]`).
    func watchApp() -> (@Sendable () -> Void)? {
        guard let app else { return nil }
        return app.bus.watch(app.unit) { event in self.submit(.appUnit(event)) }
    }

    func appUnitChanged(_ event: AppUnitEvent) {
        guard var app else { return }
        defer { self.app = app }
        switch event {
        case .lost(let reason):
            if !app.busLost {
                logger.warning(
                    "lost the watch of the app's unit: \(reason); connecting again",
                    metadata: ["unit": "\(app.unit)"]
                )
                app.busLost = true
            }
        case .state(let state):
            if app.busLost {
                logger.notice("watching the app's unit again", metadata: ["unit": "\(app.unit)"])
                app.busLost = false
            }
            logger.debug(
                "app unit \(state.activeState)/\(state.subState)\(state.hasJob ? " (job queued)" : "")",
                metadata: ["unit": "\(app.unit)"]
            )
            if let verdict = app.watch.unitChanged(state, at: now) {
                self.app = app
                carryOut(verdict)
                return
            }
        }
    }

    /// The heartbeat's deadline passed.
    func advanceApp() {
        guard let verdict = app?.watch.advance(to: now) else { return }
        carryOut(verdict)
    }

    /// A launch finished: the watch begins, and an app already down is recovered.
    func launchFinished(at destination: Destination) {
        guard app != nil else { return }
        if let place = machine.restoring, let route = place.route, destination.route != route {
            logger.notice(
                "not restoring route \(LogExcerpt.of(route)): the launch went to \(destination.screen.rawValue)",
                metadata: ["unit": "\(app!.unit)"]
            )
        }
        app!.screen = destination.screen
        app!.route = destination.route ?? app!.route
        verdict = app!.watch.arm(at: now)
    }

    /// Starts the launch the watch asked for.
    func carryOut(_ verdict: AppWatch.Verdict) {
        guard let app, machine.phase == .finished else { return }
        let window = DurationFormat.format(app.watch.settings.restartWindow)
        let unit = app.unit
        var metadata: Logger.Metadata = ["unit": "\(unit)"]
        let reason: LaunchReason
        switch verdict {
        case .recover(let why), .crashLoop(let why): reason = why
        }
        metadata["reason"] = "\(reason.rawValue)"
        if reason == .appHung {
            metadata["event"] = "\(LaunchLogEvent.appHung.rawValue)"
            let heartbeat = app.watch.settings.heartbeat.map(DurationFormat.format) ?? "?"
            logger.error("the app missed \(AppSettings.missedHeartbeats) heartbeats (every \(heartbeat)); killing \(unit)", metadata: metadata)
        } else {
            metadata["event"] = "\(LaunchLogEvent.appExited.rawValue)"
            let state = app.watch.unit.map { "\($0.activeState)/\($0.subState)" } ?? "down"
            logger.error("the app's unit \(unit) stopped without being asked to (\(state)); the splash comes back", metadata: metadata)
        }
        switch verdict {
        case .recover:
            beginLaunch(reason)
        case .crashLoop:
            metadata["event"] = "\(LaunchLogEvent.appCrashLoop.rawValue)"
            let restarts = app.watch.settings.maxRestarts
            logger.critical(
                "the app keeps stopping: \(restarts) restarts within \(window) already; not restarting it until Retry",
                metadata: metadata
            )
            if reason == .appHung {
                // Not restarted, but a hung app is not left running behind the error.
                let bus = app.bus
                let logger = self.logger
                Task {
                    do { try await bus.kill(unit) } catch { logger.notice("killing the app's unit: \(error)", metadata: ["unit": "\(unit)"]) }
                }
            }
            let step = machine.graph.steps.first { $0.plugin == BuiltinPlugin.appStart.name }?.id
            let info = ErrorInfo(
                code: .appCrashLoop, message: ErrorInfo.userMessage(for: .appCrashLoop) ?? "The app keeps stopping", step: step,
                actions: [.retry], detail: "\(unit) stopped more than \(restarts) times within \(window)"
            )
            beginLaunch(reason, holding: info)
        }
    }

    // MARK: Commands from the app

    /// `alive`: the app's heartbeat.
    func alive() -> Result<Void, ProtocolError> {
        guard app != nil else { return .failure(Self.noApp("alive")) }
        app!.watch.alive(at: now)
        return .success(())
    }

    /// `route`: where the app is now, for a launch that brings it back.
    func appReported(route written: String) -> Result<Void, ProtocolError> {
        guard app != nil else { return .failure(Self.noApp("route")) }
        let route = RoutePath.normalized(written)
        if let problem = RoutePath.problem(with: route) {
            return .failure(ProtocolError(code: .badRequest, message: "route \(LogExcerpt.of(written)): \(problem)"))
        }
        app!.route = route.isEmpty ? nil : route
        return .success(())
    }

    static func noApp(_ command: String) -> ProtocolError {
        ProtocolError(code: .unavailable, message: "\(command) needs an [app] section in the configuration")
    }

    /// Where the app was, checked again: a route the configuration no longer routes to is dropped
    /// (and logged). The screen is the last launch's; `Destination.restoring` keeps the route only
    /// when the new launch decides that same screen (not once the session is gone).
    func restoration() -> Destination.Restoration? {
        guard let app, let screen = app.screen else { return nil }
        guard let route = app.route else { return Destination.Restoration(screen: screen, route: nil) }
        guard Self.routes(route, in: machine.graph) else {
            logger.notice(
                "not restoring route \(LogExcerpt.of(route)): the configuration does not route to it any more",
                metadata: ["unit": "\(app.unit)"]
            )
            return Destination.Restoration(screen: screen, route: nil)
        }
        return Destination.Restoration(screen: screen, route: route)
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
