import Logging
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashProtocol

/// `resume` (design §14): `ResumeCheck` decides; the controller runs its steps' attempts, logs,
/// sends events and begins the launch it asks for, in the order it gives.
extension LaunchController {
    func resume() -> Result<Void, ProtocolError> {
        perform(resumeCheck.resume(phase: machine.phase, graph: machine.graph, settings: machine.settings, at: now))
        return .success(())
    }

    func checkFinished(token: UInt64, result: Result<Facts, StepFailure>) {
        perform(resumeCheck.stepFinished(token: token, result: result, at: now))
    }

    /// Advances the check's timers.
    func advanceCheck() {
        perform(resumeCheck.advance(to: now))
    }

    /// Stops the check, if one runs (a launch begins).
    func endCheck() {
        perform(resumeCheck.end())
    }

    /// Carries out the check's actions, in order.
    private func perform(_ actions: [ResumeCheck.Action]) {
        for action in actions {
            switch action {
            case .log(let level, let message, let metadata): logger.log(level: level, "\(message)", metadata: metadata)
            case .logStep(let event, let launch): LaunchLog.log(event, launch: launch, to: logger)
            case .start(let run): start(run, background: true)
            case .cancel(let token): checking[token]?.cancel()
            case .cancelAll:
                for task in checking.values { task.cancel() }
                checking = [:]
            case .beginLaunch(let carrying):
                carried = carrying
                beginLaunch(.resume)
            case .broadcast(let name, let fields):
                broadcaster.broadcast(event: .event(name: name, fields: fields))
            }
        }
    }
}
