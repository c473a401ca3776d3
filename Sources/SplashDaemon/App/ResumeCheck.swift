import Logging
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashProtocol

/// `resume` (design §14) as a value: the app became active again or the display woke. The session
/// is checked in the background and a pending quick action is delivered as an event, with no
/// splash; only a session that is gone or a critical check that fails shows it, as a launch with
/// reason `resume`.
///
/// How it fits the phases: the published machine stays in `finished` throughout. The check is a
/// second `LaunchMachine` over a graph cut from the launch's — the `auth-refresh` steps, the
/// critical steps that depend on them, and the `quick-action` steps — run by the same plugins,
/// whose states are never published and whose launch is not recorded. When it reaches
/// `dismissing` its facts are read: signed in, and the quick action (if any) goes out as an
/// `event`; signed out, or in `error`, the visible launch begins. A launch that begins for any
/// other reason ends the check first.
///
/// Pure: it is told the time and what happened, and returns what `LaunchController` is to do
/// (`Action`); the controller owns the plugins' tasks and carries the actions out in order.
struct ResumeCheck {
    /// What the controller is to do, in order.
    enum Action: Equatable {
        /// Log a line of the resume (`event=resume`).
        case log(Logger.Level, String, Logger.Metadata)
        /// Log a step's event of the check, as a launch's are.
        case logStep(LaunchEvent, launch: String)
        /// Start an attempt of a step, in the background (its result comes back to `stepFinished`).
        case start(StepRun)
        /// Stop the attempt with this token.
        case cancel(token: UInt64)
        /// Stop every attempt of the check: it ended.
        case cancelAll
        /// The splash comes back: a launch with reason `resume`, given the quick action or deep
        /// link the check's own quick-action step took (its spool file is gone), if any.
        case beginLaunch(carrying: QuickInput?)
        /// Send subscribers this event (`open` or `action`, with its fields).
        case broadcast(name: String, fields: [String: JSONValue])
    }

    /// The check under way, if any.
    private(set) var machine: LaunchMachine?
    /// How many checks ran: the next one's launch id is `resume-N`.
    private var checks = 0
    private var logLimit = LogLimit()
    /// Whether the check under way is logged in full (`LogLimit`).
    private var logged = true

    /// When the check's timers next need advancing.
    var nextDeadline: Duration? { machine?.nextDeadline }

    /// A resume arrived while the published launch is in `phase`, whose graph and settings are
    /// `graph` and `settings`.
    mutating func resume(phase: Phase, graph: StepGraph, settings: SplashSettings, at now: Duration) -> [Action] {
        var metadata: Logger.Metadata = ["event": "\(LaunchLogEvent.resume.rawValue)"]
        var actions: [Action] = []
        guard phase == .finished else {
            if admitLog(metadata, at: now, into: &actions) {
                actions.append(.log(.info, "resume while the splash is up: the launch checks the session itself", metadata))
            }
            return actions
        }
        guard machine == nil else { return [] }
        let logged = admitLog(metadata, at: now, into: &actions)
        guard let graph = Self.graph(of: graph) else {
            if logged { actions.append(.log(.info, "resume: nothing to check (no auth-refresh or quick-action step)", metadata)) }
            return actions
        }
        var settings = settings
        settings.minDisplay = .zero
        var check = LaunchMachine(graph: graph, settings: settings)
        checks += 1
        metadata["steps"] = "\(graph.steps.map(\.id).joined(separator: ","))"
        if logged { actions.append(.log(.info, "resume: checking the session in the background", metadata)) }
        self.logged = logged
        let started = check.start(launch: "resume-\(checks)", at: now)
        machine = check
        return actions + carryOut(started)
    }

    /// A step of the check finished.
    mutating func stepFinished(token: UInt64, result: Result<Facts, StepFailure>, at now: Duration) -> [Action] {
        guard var check = machine else { return [] }
        let actions = check.stepFinished(token: token, result: result, at: now)
        machine = check
        return carryOut(actions)
    }

    /// Advances the check's timers.
    mutating func advance(to now: Duration) -> [Action] {
        guard var check = machine else { return [] }
        let actions = check.advance(to: now)
        machine = check
        return carryOut(actions)
    }

    /// Ends the check, if one runs (a launch begins, or it ended).
    mutating func end() -> [Action] {
        guard machine != nil else { return [] }
        machine = nil
        return [.cancelAll]
    }

    /// Whether this resume is logged in full; the resumes that were not before it are told first.
    private mutating func admitLog(_ metadata: Logger.Metadata, at now: Duration, into actions: inout [Action]) -> Bool {
        let (logged, folded) = logLimit.admit(at: now)
        if folded > 0 {
            actions.append(.log(
                .notice,
                "resume: \(logLimit.foldedLine(folded, "resumes"))",
                metadata
            ))
        }
        return logged
    }

    /// The check machine's actions turned into the controller's (nothing is published), then
    /// where the check got.
    private mutating func carryOut(_ launchActions: [LaunchAction]) -> [Action] {
        guard let check = machine else { return [] }
        var actions: [Action] = []
        for action in launchActions {
            switch action {
            case .start(let run): actions.append(.start(run))
            case .cancel(_, let token): actions.append(.cancel(token: token))
            case .event(let event):
                switch event {
                case .stepSucceeded, .stepSkipped: if logged { actions.append(.logStep(event, launch: check.launch)) }
                case .stepFailed: actions.append(.logStep(event, launch: check.launch))
                default: break
                }
            case .publish, .resetLaunchInputs: break
            }
        }
        var metadata: Logger.Metadata = ["event": "\(LaunchLogEvent.resume.rawValue)", "launch": "\(check.launch)"]
        switch check.stage {
        case .loading, .finished:
            break
        case .error(let error):
            metadata["code"] = "\(error.info.code)"
            actions.append(.log(.warning, "resume: \(error.info.message); the splash comes back", metadata))
            let facts = check.succeededFacts
            actions += end()
            actions.append(.beginLaunch(carrying: Self.carriedInput(in: facts)))
        case .dismissing(_, let destination):
            let facts = check.succeededFacts
            actions += end()
            if facts["authenticated"]?.boolValue == false {
                actions.append(.log(.notice, "resume: the session is gone; the splash comes back (\(destination.screen.rawValue))", metadata))
                // The spool file the check took is gone: its action goes to the launch's own step.
                actions.append(.beginLaunch(carrying: Self.carriedInput(in: facts)))
            } else {
                if logged { actions.append(.log(.info, "resume: the session is valid; nothing shown", metadata)) }
                if let event = Self.quickActionEvent(facts) { actions.append(event) }
            }
        }
        return actions
    }

    /// The graph a resume checks; nil when there is nothing to check.
    static func graph(of graph: StepGraph) -> StepGraph? {
        var included = Set<Int>()
        var queue: [Int] = []
        for (index, step) in graph.steps.enumerated()
        where step.plugin == BuiltinPlugin.authRefresh.name || step.plugin == BuiltinPlugin.quickAction.name {
            included.insert(index)
            if step.plugin == BuiltinPlugin.authRefresh.name { queue.append(index) }
        }
        while let next = queue.popLast() {
            for dependant in graph.dependants[next] where !included.contains(dependant) {
                let step = graph.steps[dependant]
                // Not the app's first frame or start, and not the launch counter: a resume is not a launch.
                let skipped: Set<String> = [BuiltinPlugin.signal.name, BuiltinPlugin.appStart.name, BuiltinPlugin.launchCounter.name]
                guard step.critical, !skipped.contains(step.plugin) else { continue }
                included.insert(dependant)
                queue.append(dependant)
            }
        }
        guard !included.isEmpty else { return nil }
        let ids = Set(included.map { graph.steps[$0].id })
        let steps = included.sorted().map { index in
            var step = graph.steps[index]
            step.after = step.after.filter(ids.contains)
            return step
        }
        return try? StepGraph(steps: steps)
    }

    /// The quick action or deep link the check's quick-action step took, if any.
    static func carriedInput(in facts: Facts) -> QuickInput? {
        guard let action = facts["action"]?.stringValue else { return nil }
        return action.contains(":") ? .open(action) : .action(action)
    }

    /// The quick action the check found, as the `event` subscribers get.
    static func quickActionEvent(_ facts: Facts) -> Action? {
        guard let action = facts["action"]?.stringValue else { return nil }
        var fields: [String: JSONValue] = [:]
        let isLink = action.contains(":")
        fields[isLink ? "url" : "name"] = .string(action)
        if let route = facts["route"]?.stringValue { fields["route"] = .string(route) }
        if let sheet = facts["sheet"]?.stringValue { fields["sheet"] = .string(sheet) }
        return .broadcast(name: isLink ? "open" : "action", fields: fields)
    }
}
