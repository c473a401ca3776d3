import Logging
import SplashCore
import SplashPlugins
import SplashProtocol

/// The app's life after `finished` (design §14) as the controller keeps it, as a value: the
/// watch of the unit (`AppWatch`), where the app is, and the state of the bus it is watched on.
///
/// Pure, as `LaunchMachine`: it is told the time and what the unit, the app and the launches did,
/// and returns what the controller is to do (`Action`): log, carry out the watch's verdict, retry
/// a launch the bus stopped. The bus, the ledger and the relay of queued starts are the
/// controller's (`AppLink`).
struct AppLife: Sendable {
    /// What the controller is to do, in order.
    enum Action: Equatable {
        /// Log a line about the unit (the controller adds `unit=` to it).
        case log(Logger.Level, String)
        /// The watch's verdict: a launch over the app, or the crash loop's error.
        case verdict(AppWatch.Verdict)
        /// The watch is back on the bus and the unit is well: a launch stopped in `error` because
        /// its `app` step could not reach systemd is retried, as if someone pressed Retry.
        case retryAfterTheBus
    }

    private(set) var watch: AppWatch
    /// Where the app said it is (`route`) since the current launch began (an app reports where it
    /// is as soon as it runs, often before the launch has finished); from `finished` on, the
    /// launch's own route if it had one.
    private(set) var route: String?
    /// The screen the last finished launch sent the app to.
    private(set) var screen: Destination.Screen?
    /// In a launch that recovers the app: the main process of the app it replaces (`MainPID` as
    /// systemd last said), whose `complete`s no longer count.
    private(set) var replaced: UInt32?
    /// The watch lost the bus: logged once until it is back.
    private var busLost = false
    /// The watch is connected and has sent the unit's state since.
    private var connected = false
    /// Signals in systemd's name from another sender: logged a few a minute, the rest counted.
    private var refusals = LogLimit()

    init(settings: AppSettings) {
        watch = AppWatch(settings: settings)
    }

    var unit: String { watch.settings.unit }
    var settings: AppSettings { watch.settings }

    /// News of the unit from the bus (or of a start the `app` step queued).
    mutating func unitEvent(_ event: AppUnitEvent, at now: Duration) -> [Action] {
        var actions: [Action] = []
        let verdict: AppWatch.Verdict?
        switch event {
        case .lost(let reason):
            if !busLost {
                actions.append(.log(.warning, "lost the watch of the app's unit: \(reason); connecting again"))
                busLost = true
            }
            connected = false
            verdict = nil
        case .state(let state):
            let afterGap = !connected
            connected = true
            if busLost {
                actions.append(.log(.notice, "watching the app's unit again"))
                busLost = false
            }
            actions.append(.log(.debug, "app unit \(state.summary)\(state.hasJob ? " (job \(state.job) queued)" : ""), main pid \(state.mainPID)"))
            verdict = watch.unitChanged(state, at: now, afterGap: afterGap)
            if afterGap, verdict == nil { actions.append(.retryAfterTheBus) }
        case .jobEnded(let job, let result):
            actions.append(.log(.debug, "app unit job \(job) ended: \(LogExcerpt.of(result))"))
            verdict = watch.jobEnded(job, result: result, at: now)
        case .startQueued(let job):
            verdict = watch.startQueued(job: job, at: now)
        case .refused(let sender):
            // Only systemd speaks for systemd (design §18): nothing changes.
            let (logged, folded) = refusals.admit(at: now)
            if logged {
                let more = folded > 0 ? " (and \(folded) more since the last one told)" : ""
                actions.append(.log(.warning, "refused a signal in systemd's name from \(LogExcerpt.of(sender)), which does not own it\(more)"))
            }
            verdict = nil
        }
        if let verdict { actions.append(.verdict(verdict)) }
        return actions
    }

    /// The heartbeat's deadline passed.
    mutating func advance(to now: Duration) -> [Action] {
        watch.advance(to: now).map { [.verdict($0)] } ?? []
    }

    /// A launch began: the app process it replaces, when it recovers the app (a hung one is
    /// killed by its app step); the app's route is the new launch's to learn.
    mutating func launchBegan(recoveringTheApp: Bool) {
        replaced = recoveringTheApp ? watch.unit?.mainPID : nil
        watch.launchBegan()
        route = nil
    }

    /// A launch finished at `destination`, having restored `restoring`: the watch begins, and an
    /// app already down is recovered (the verdict, carried out once the launch's turn is done).
    mutating func launchFinished(at destination: Destination, restoring: Destination.Restoration?, at now: Duration) -> [Action] {
        var actions: [Action] = []
        if let route = restoring?.route, destination.route != route {
            actions.append(.log(.notice, "not restoring route \(LogExcerpt.of(route)): the launch went to \(destination.screen.rawValue)"))
        }
        screen = destination.screen
        route = destination.route ?? route
        if let verdict = watch.arm(at: now) { actions.append(.verdict(verdict)) }
        return actions
    }

    /// `alive`: the app's heartbeat.
    mutating func alive(at now: Duration) {
        watch.alive(at: now)
    }

    /// `route`: where the app is now, for a launch that brings it back; why not, if it is refused.
    mutating func report(route written: String) -> ProtocolError? {
        let route = RoutePath.normalized(written)
        if let problem = RoutePath.problem(with: route) {
            return ProtocolError(code: .badRequest, message: "route \(LogExcerpt.of(written)): \(problem)")
        }
        self.route = route.isEmpty ? nil : route
        return nil
    }

    /// Where the app was, checked again: a route the configuration no longer routes to
    /// (`routed`) is dropped, and said. The screen is the last launch's; `Destination.restoring`
    /// keeps the route only when the new launch decides that same screen.
    func restoration(routed: (String) -> Bool) -> (Destination.Restoration?, [Action]) {
        guard let screen else { return (nil, []) }
        guard let route else { return (Destination.Restoration(screen: screen, route: nil), []) }
        guard routed(route) else {
            let said = Action.log(.notice, "not restoring route \(LogExcerpt.of(route)): the configuration does not route to it any more")
            return (Destination.Restoration(screen: screen, route: nil), [said])
        }
        return (Destination.Restoration(screen: screen, route: route), [])
    }

    /// The recoveries an earlier run of the daemon counted (`AppRecoveryLedger`).
    mutating func restore(recoveries: [Duration]) {
        watch.restore(recoveries: recoveries)
    }

    /// Retry after the crash loop: the count starts again.
    mutating func forgetRecoveries() {
        watch.forgetRecoveries()
    }
}
