import SplashCore
import SplashJSON
import SplashProtocol
import Testing

/// Drives a `LaunchMachine` on explicit instants (milliseconds) and remembers what it asked for.
struct MachineHarness {
    var machine: LaunchMachine
    var now: Duration = .zero
    /// The latest attempt started for each step id.
    var runs: [String: StepRun] = [:]
    var cancelled: [String] = []
    var events: [LaunchEvent] = []
    var publishes = 0
    /// `resetLaunchInputs` actions seen: one per launch start.
    var resets = 0
    var progressSeen: [Double] = []

    init(_ steps: [StepSpec], settings: SplashSettings = SplashSettings()) throws {
        machine = LaunchMachine(graph: try StepGraph(steps: steps), settings: settings)
        record(machine.start(launch: "L1", at: .zero))
    }

    var phase: Phase { machine.phase }

    func status(_ id: String) -> StepStatus { machine.steps[machine.graph.index(of: id)!].status }
    func attempt(_ id: String) -> Int { machine.steps[machine.graph.index(of: id)!].attempt }
    func isRunning(_ id: String) -> Bool { status(id) == .running && machine.steps[machine.graph.index(of: id)!].retryAt == nil }

    mutating func record(_ actions: [LaunchAction]) {
        for action in actions {
            switch action {
            case .resetLaunchInputs: resets += 1
            case .start(let run): runs[run.step.id] = run
            case .cancel(let step, _): cancelled.append(step)
            case .event(let event): events.append(event)
            case .publish:
                publishes += 1
                _ = machine.publish(at: now)
                progressSeen.append(machine.progress)
            }
        }
    }

    /// Moves time to `ms` milliseconds after the launch began.
    mutating func at(_ ms: Int) {
        now = .milliseconds(ms)
        record(machine.advance(to: now))
    }

    mutating func succeed(_ id: String, facts: Facts = [:], at ms: Int) {
        at(ms)
        let token = runs[id]!.token
        record(machine.stepFinished(token: token, result: .success(facts), at: now))
    }

    mutating func fail(_ id: String, retryable: Bool = false, code: ErrorCode = .stepFailed, at ms: Int) {
        at(ms)
        let token = runs[id]!.token
        let failure = StepFailure(code: code, message: "\(id) broke", retryable: retryable)
        record(machine.stepFinished(token: token, result: .failure(failure), at: now))
    }

    mutating func command(_ command: LaunchMachine.Command, at ms: Int) throws(LaunchMachine.Refusal) {
        at(ms)
        record(try machine.apply(command, at: now))
    }

    var phaseChanges: [Phase] {
        events.compactMap { if case .phaseChanged(_, let to) = $0 { to } else { nil } }
    }
}

func step(_ id: String, after: [String] = [], critical: Bool = true, timeout: Int = 5000, attempts: Int = 1, backoff: Int = 200, label: String? = nil) -> StepSpec {
    StepSpec(
        id: id, plugin: "test", after: after, critical: critical, timeout: .milliseconds(timeout),
        retry: .init(attempts: attempts, backoff: .milliseconds(backoff)), label: label
    )
}
