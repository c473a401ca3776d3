import Logging
import SplashBuiltins
import SplashCore

/// `resume` (design §14): the app became active again or the display woke. The session is checked
/// in the background and pending quick actions are delivered as events, with no splash; only a
/// session that is gone or a critical check that fails shows it, as a launch with reason `resume`.
///
/// How it fits the phases: the published machine stays in `finished` throughout. The check is a
/// second `LaunchMachine` over a graph cut from the launch's — the `auth-refresh` steps, the
/// critical steps that depend on them, and the `quick-action` steps — run by the same plugins,
/// whose states are never published and whose launch is not recorded. When it reaches
/// `dismissing` its facts are read: signed in, and the quick action (if any) goes out as an
/// `event`; signed out, or in `error`, the visible launch begins. A launch that begins for any
/// other reason ends the check first.
extension LaunchController {
    func resume() -> Result<Void, ProtocolError> {
        var metadata: Logger.Metadata = ["event": "\(LaunchLogEvent.resume.rawValue)"]
        guard machine.phase == .finished else {
            if admitResumeLog(metadata) { logger.info("resume while the splash is up: the launch checks the session itself", metadata: metadata) }
            return .success(())
        }
        guard check == nil else { return .success(()) }
        let logged = admitResumeLog(metadata)
        guard let graph = Self.resumeGraph(of: machine.graph) else {
            if logged { logger.info("resume: nothing to check (no auth-refresh or quick-action step)", metadata: metadata) }
            return .success(())
        }
        var settings = machine.settings
        settings.minDisplay = .zero
        var check = LaunchMachine(graph: graph, settings: settings)
        checks += 1
        let id = "resume-\(checks)"
        metadata["steps"] = "\(graph.steps.map(\.id).joined(separator: ","))"
        if logged { logger.info("resume: checking the session in the background", metadata: metadata) }
        checkLogged = logged
        let actions = check.start(launch: id, at: now)
        self.check = check
        applyCheck(actions)
        return .success(())
    }

    /// Whether this resume is logged in full (`ResumeLogLimit`); the resumes that were not before
    /// it are told first.
    private func admitResumeLog(_ metadata: Logger.Metadata) -> Bool {
        let (logged, folded) = resumeLog.admit(at: now)
        if folded > 0 {
            logger.notice(
                "resume: \(folded) more resumes were not logged (more than \(ResumeLogLimit.burst) within \(DurationFormat.format(ResumeLogLimit.window)))",
                metadata: metadata
            )
        }
        return logged
    }

    /// The graph a resume checks; nil when there is nothing to check.
    static func resumeGraph(of graph: StepGraph) -> StepGraph? {
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

    func checkFinished(token: UInt64, result: Result<Facts, StepFailure>) {
        guard var check else { return }
        let actions = check.stepFinished(token: token, result: result, at: now)
        self.check = check
        applyCheck(actions)
    }

    /// Carries out the check's actions (nothing is published) and looks at where it got.
    func applyCheck(_ actions: [LaunchAction]) {
        guard let check else { return }
        for action in actions {
            switch action {
            case .start(let run): start(run, background: true)
            case .cancel(_, let token): checking[token]?.cancel()
            case .event(let event):
                switch event {
                case .stepSucceeded, .stepSkipped: if checkLogged { LaunchLog.log(event, launch: check.launch, to: logger) }
                case .stepFailed: LaunchLog.log(event, launch: check.launch, to: logger)
                default: break
                }
            case .publish, .resetLaunchInputs: break
            }
        }
        var metadata: Logger.Metadata = ["event": "\(LaunchLogEvent.resume.rawValue)", "launch": "\(check.launch)"]
        switch check.stage {
        case .loading, .finished:
            return
        case .error(let error):
            metadata["code"] = "\(error.info.code)"
            logger.warning("resume: \(error.info.message); the splash comes back", metadata: metadata)
            let facts = check.succeededFacts
            endCheck()
            carried = Self.carriedInput(in: facts)
            beginLaunch(.resume)
        case .dismissing(_, let destination):
            let facts = check.succeededFacts
            endCheck()
            if facts["authenticated"]?.boolValue == false {
                logger.notice("resume: the session is gone; the splash comes back (\(destination.screen.rawValue))", metadata: metadata)
                // The spool file the check took is gone: its action goes to the launch's own step.
                carried = Self.carriedInput(in: facts)
                beginLaunch(.resume)
                return
            }
            if checkLogged { logger.info("resume: the session is valid; nothing shown", metadata: metadata) }
            deliverQuickAction(facts)
        }
    }

    /// The quick action or deep link the check's quick-action step took, if any.
    static func carriedInput(in facts: Facts) -> QuickInput? {
        guard let action = facts["action"]?.stringValue else { return nil }
        return action.contains(":") ? .open(action) : .action(action)
    }

    /// The quick action the check found, sent to subscribers as an `event`.
    private func deliverQuickAction(_ facts: Facts) {
        guard let action = facts["action"]?.stringValue else { return }
        var fields: [String: JSONValue] = [:]
        let isLink = action.contains(":")
        fields[isLink ? "url" : "name"] = .string(action)
        if let route = facts["route"]?.stringValue { fields["route"] = .string(route) }
        if let sheet = facts["sheet"]?.stringValue { fields["sheet"] = .string(sheet) }
        broadcaster.broadcast(event: .event(name: isLink ? "open" : "action", fields: fields))
    }

    /// Stops the check, if one runs (a launch begins, or it ended).
    func endCheck() {
        guard check != nil else { return }
        for task in checking.values { task.cancel() }
        checking = [:]
        check = nil
    }

    /// Advances the check's timers.
    func advanceCheck() {
        guard var check else { return }
        let actions = check.advance(to: now)
        self.check = check
        applyCheck(actions)
    }
}
