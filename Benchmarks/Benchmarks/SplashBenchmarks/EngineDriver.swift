import Benchmark
import SplashCore
import SplashProtocol

/// Step graphs for the engine benchmarks.
enum EngineGraphs {
    /// `layers` × `width` steps; every step depends on every step of the previous layer.
    static func layered(layers: Int, width: Int, plugin: String = "instant") -> StepGraph {
        var specs: [StepSpec] = []
        specs.reserveCapacity(layers * width)
        for layer in 0..<layers {
            let previous = layer == 0 ? [] : (0..<width).map { "s\(layer - 1)-\($0)" }
            for index in 0..<width {
                specs.append(StepSpec(id: "s\(layer)-\(index)", plugin: plugin, after: previous, label: "Step \(layer)-\(index)"))
            }
        }
        return try! StepGraph(steps: specs)
    }
}

/// Runs one launch of a `LaunchMachine` to `dismissing` the way `LaunchController` does: one
/// input at a time from a FIFO, each step's "plugin" returning empty facts at once.
enum EngineDriver {
    enum Publish {
        /// Ignore `.publish` (the machine alone).
        case none
        /// A snapshot and one encoding per `.publish` (what the daemon did before it coalesced).
        case snapshotAndEncode
        /// Remember that a publish is due; snapshot and encode the latest once, when idle (what
        /// `LaunchController` does: a flush queued behind the pending inputs).
        case coalesced
    }

    /// Returns the number of states published (so the work is not optimised away).
    static func runLaunch(graph: StepGraph, publish: Publish) -> Int {
        let clock = ContinuousClock()
        let origin = clock.now
        var now: Duration { origin.duration(to: clock.now) }
        var machine = LaunchMachine(
            graph: graph,
            settings: SplashSettings(minDisplay: .zero, slowAfter: .seconds(60), timeout: .seconds(60), exitAnimation: .seconds(60))
        )
        machine.tickInterval = .milliseconds(100)
        var queue: [UInt64] = []
        queue.reserveCapacity(graph.steps.count)
        var head = 0
        var published = 0
        var due = false
        func carryOut(_ actions: [LaunchAction]) {
            for action in actions {
                switch action {
                case .start(let run): queue.append(run.token)
                case .publish:
                    switch publish {
                    case .none: break
                    case .snapshotAndEncode:
                        published += ServerMessage.state(machine.publish(at: now)).line().count
                    case .coalesced: due = true
                    }
                default: break
                }
            }
            _ = machine.nextDeadline
        }
        carryOut(machine.start(launch: "bench", at: now))
        while machine.phase == .loading {
            if head < queue.count {
                let token = queue[head]
                head += 1
                carryOut(machine.stepFinished(token: token, result: .success([:]), at: now))
            } else {
                if due {
                    published += ServerMessage.state(machine.publish(at: now)).line().count
                    due = false
                }
                // Only the zero min_display deadline can be left.
                carryOut(machine.advance(to: now))
                if head >= queue.count && machine.phase == .loading { break }
            }
        }
        if due { published += ServerMessage.state(machine.publish(at: now)).line().count }
        precondition(machine.phase == .dismissing, "launch ended in \(machine.phase)")
        return published
    }
}

/// Representative state messages.
enum ProtocolSamples {
    static func state(steps count: Int) -> StateMessage {
        var steps: [StateMessage.Step] = []
        for index in 0..<count {
            let status: StepStatus = index % 3 == 0 ? .running : .succeeded
            let step = StateMessage.Step(
                id: "step-\(index)", status: status, attempt: 1,
                durationMs: Int64(100 + index), label: "Doing part \(index)", critical: index % 4 != 0
            )
            steps.append(step)
        }
        return StateMessage(
            seq: 1234, launch: "6f1c0e1a-3b7d-4c55-9a8e-2f7b0d1c9e42", phase: .loading, slow: true,
            progress: 0.421, message: "Signing in", elapsedMs: 1234, steps: steps, error: nil, destination: nil
        )
    }
}
