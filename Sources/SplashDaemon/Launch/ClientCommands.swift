import Logging
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashPlugins
import SplashProtocol

/// The client commands that do not move the phase — `complete`, `action` / `open`, `sign-in` /
/// `sign-out` — and what a launch's start and end mean for them.
///
/// Every method is synchronous: the controller calls them inside one turn of its loop, so a
/// command is applied in the order it arrived relative to every other input (a `complete` sent
/// for a new launch can never be wiped by the reset of a relaunch that came before it).
struct ClientCommands: Sendable {
    let builtins: BuiltinServices?
    let broadcaster: StateBroadcaster
    let logger: Logger

    /// `complete STEP`: the client says a `signal` step's work is done.
    func complete(_ step: String, graph: StepGraph, plugins: PluginRegistry) -> Result<Void, ProtocolError> {
        guard let spec = graph[step] else {
            return .failure(ProtocolError(code: .unknownStep, message: "no step \"\(step)\" in this graph"))
        }
        guard let board = plugins.signalBoard, spec.plugin == BuiltinPlugin.signal.name else {
            return .failure(
                ProtocolError(code: .notASignalStep, message: "step \"\(step)\" uses plugin \(spec.plugin), not signal")
            )
        }
        board.complete(step: step)
        logger.info("signal step completed by a client", metadata: ["step": "\(step)"])
        return .success(())
    }

    /// `action NAME` / `open URL`. Before the launch's quick-action step has run, queued for it;
    /// once it has succeeded and the launch is still loading (e.g. waiting on a `signal` step),
    /// routed now and made that step's facts, so the destination follows (`amend`); from
    /// `dismissing` on, too late for the destination: routed and broadcast as an event at
    /// `finished` (at once when the launch is finished).
    func quickInput(
        _ input: QuickInput, phase: Phase, graph: StepGraph, quickActionDone: Bool, amend: (Facts) -> Bool
    ) -> Result<Void, ProtocolError> {
        if phase == .loading || phase == .error, quickActionDone, let builtins,
            let step = graph.steps.first(where: { $0.plugin == BuiltinPlugin.quickAction.name })
        {
            guard let resolution = builtins.resolve(input, step: step, logger: logger) else { return Self.noRoute(input) }
            let facts: Facts = [
                "action": .string(resolution.name ?? resolution.url ?? input.text),
                "route": resolution.route.map(JSONValue.string) ?? .null,
                "sheet": resolution.sheet.map(JSONValue.string) ?? .null,
            ]
            if amend(facts) {
                logger.info(
                    "a quick action or deep link received while loading takes the destination",
                    metadata: ["step": "\(step.id)", "route": "\(LogExcerpt.of(resolution.route ?? "-"))"]
                )
                return .success(())
            }
        }
        if phase != .finished {
            builtins?.post(input)
            return .success(())
        }
        let event = builtins.map { $0.event(for: input, graph: graph, logger: logger) }
            ?? BuiltinServices.event(input, resolution: nil)
        guard let event else { return Self.noRoute(input) }
        broadcaster.broadcast(event: event)
        return .success(())
    }

    static func noRoute(_ input: QuickInput) -> Result<Void, ProtocolError> {
        let command = if case .action = input { "action" } else { "open" }
        return .failure(ProtocolError(code: .unknownAction, message: "no route for \(command) \(String(input.text.prefix(200)))"))
    }

    /// `sign-in`: stores the session where the graph's auth-refresh step reads it.
    func signIn(_ session: [String: JSONValue], graph: StepGraph) -> Result<Void, ProtocolError> {
        guard let builtins else { return .failure(Self.noBuiltins("sign-in")) }
        return builtins.signIn(session, graph: graph, logger: logger)
    }

    /// `sign-out`: removes the stored session.
    func signOut(graph: StepGraph) -> Result<Void, ProtocolError> {
        guard let builtins else { return .failure(Self.noBuiltins("sign-out")) }
        return builtins.signOut(graph: graph, logger: logger)
    }

    /// A new launch begins: completions and quick inputs sent for the last one are forgotten.
    func resetLaunchInputs(plugins: PluginRegistry) {
        plugins.signalBoard?.reset()
        builtins?.launchStarted()
    }

    /// A launch finished: remember it on the device (for `first_launch`), and route the inputs
    /// its quick-action step never saw as events.
    func launchFinished(graph: StepGraph) {
        guard let builtins else { return }
        builtins.launchFinished(logger: logger)
        for input in builtins.leftoverInputs() {
            if let event = builtins.event(for: input, graph: graph, logger: logger) { broadcaster.broadcast(event: event) }
        }
    }

    static func noBuiltins(_ command: String) -> ProtocolError {
        ProtocolError(code: .unavailable, message: "\(command) needs the built-in plugins")
    }
}
