public import SplashCore
import SplashJSON
public import SplashProtocol

/// Runs a `LaunchMachine` through a whole launch on explicit instants, with step durations and
/// results from a plan, and records it with a `LaunchRecorder` — a launch "recorded" without
/// sleeping. Steps finish exactly when the plan says; timed transitions happen at their deadlines.
public struct LaunchSimulation {
    /// What one attempt does: how long it takes and how it ends.
    public struct Attempt {
        public var ms: Int
        public var failure: StepFailure?

        public init(ms: Int, failure: StepFailure? = nil) {
            self.ms = ms
            self.failure = failure
        }

        public static func ok(_ ms: Int) -> Attempt { Attempt(ms: ms) }
        public static func fail(_ ms: Int, retryable: Bool = false, code: ErrorCode = .stepFailed) -> Attempt {
            Attempt(ms: ms, failure: StepFailure(code: code, message: "broke", retryable: retryable))
        }
    }

    /// A sampled instant: the time since the launch began and what `observe` returned.
    public struct Sample<Value> {
        public var ms: Int
        public var value: Value
        /// Whether the machine had just published a new state.
        public var published: Bool
    }

    public var machine: LaunchMachine
    public var recorder: LaunchRecorder
    public private(set) var now: Duration = .zero
    private var running: [UInt64: (endsAt: Duration, result: Result<Facts, StepFailure>)] = [:]
    private let plan: (String, Int) -> Attempt
    private var publishedAt: Duration?

    /// - Parameter plan: the attempt for (step id, attempt number).
    public init(
        graph: StepGraph,
        settings: SplashSettings = SplashSettings(timeout: .seconds(60)),
        launch: String = "L",
        startedAtUnixMs: Int64 = 1_714_555_800_000,
        plan: @escaping (String, Int) -> Attempt
    ) {
        machine = LaunchMachine(graph: graph, settings: settings)
        recorder = LaunchRecorder(launch: launch, startedAtUnixMs: startedAtUnixMs, graph: graph, settings: settings)
        self.plan = plan
        handle(machine.start(launch: launch, at: .zero))
    }

    /// Steps with fixed durations that always succeed.
    public init(graph: StepGraph, settings: SplashSettings = SplashSettings(timeout: .seconds(60)), launch: String = "L",
         startedAtUnixMs: Int64 = 1_714_555_800_000, durations: [String: Int]) {
        self.init(graph: graph, settings: settings, launch: launch, startedAtUnixMs: startedAtUnixMs) { id, _ in
            .ok(durations[id] ?? 0)
        }
    }

    public var record: LaunchRecord { recorder.record }

    /// Runs until `stop` holds (checked after every instant) or the launch is finished, calling
    /// `observe` every `sampleEveryMs` and at every instant something happened.
    @discardableResult
    public mutating func run<Value>(
        sampleEveryMs: Int = 10,
        until stop: (LaunchMachine) -> Bool = { _ in false },
        observe: (LaunchMachine, Duration) -> Value
    ) -> [Sample<Value>] {
        var samples: [Sample<Value>] = []
        var nextSample = now
        var steps = 0
        while machine.phase != .finished && !stop(machine) {
            steps += 1
            precondition(steps < 1_000_000, "simulation does not converge")
            if nextSample <= now {
                samples.append(Sample(ms: Int(now.milliseconds), value: observe(machine, now), published: publishedAt == now))
                nextSample = now + .milliseconds(sampleEveryMs)
            }
            var next = nextSample
            if let end = running.values.map(\.endsAt).min() { next = min(next, end) }
            if let deadline = machine.nextDeadline { next = min(next, deadline) }
            // Nothing can happen by itself (a hard error waits for the user).
            if running.isEmpty && machine.nextDeadline == nil { break }
            now = max(now, next)
            for (token, attempt) in running.sorted(by: { $0.key < $1.key }) where attempt.endsAt <= now {
                running[token] = nil
                handle(machine.stepFinished(token: token, result: attempt.result, at: now))
            }
            handle(machine.advance(to: now))
            if publishedAt == now {
                samples.append(Sample(ms: Int(now.milliseconds), value: observe(machine, now), published: true))
            }
        }
        return samples
    }

    /// Runs the launch to `finished` without sampling.
    public mutating func finish() {
        run(sampleEveryMs: 1_000_000) { _, _ in () }
    }

    /// Moves time to `ms` after the launch began (e.g. a user looking at the error screen).
    public mutating func wait(untilMs ms: Int) {
        now = max(now, .milliseconds(ms))
        for (token, attempt) in running.sorted(by: { $0.key < $1.key }) where attempt.endsAt <= now {
            running[token] = nil
            handle(machine.stepFinished(token: token, result: attempt.result, at: now))
        }
        handle(machine.advance(to: now))
    }

    /// Applies a user command now.
    public mutating func command(_ command: LaunchMachine.Command) throws {
        handle(try machine.apply(command, at: now))
    }

    private mutating func handle(_ actions: [LaunchAction]) {
        for action in actions {
            switch action {
            case .start(let run):
                let attempt = plan(run.step.id, run.attempt)
                running[run.token] = (
                    now + .milliseconds(attempt.ms),
                    attempt.failure.map { .failure($0) } ?? .success([:])
                )
            case .cancel(_, let token):
                running[token] = nil
            case .resetLaunchInputs:
                break
            case .event(let event):
                recorder.apply(event, atMs: (now - machine.launchStartedAt).milliseconds)
            case .publish:
                _ = machine.publish(at: now)
                publishedAt = now
            }
        }
    }
}

/// A step for history tests (plugin "test", generous timeout).
public func hstep(_ id: String, after: [String] = [], critical: Bool = true, attempts: Int = 1, backoff: Int = 200, label: String? = nil, plugin: String = "test") -> StepSpec {
    StepSpec(
        id: id, plugin: plugin, after: after, critical: critical, timeout: .seconds(30),
        retry: .init(attempts: attempts, backoff: .milliseconds(backoff)), label: label
    )
}

/// The bootstrap graph most tests use: two parallel chains joined at the end.
///
///     auth-refresh 600 → profile-sync 700 ─┐
///     config-fetch 900 ────────────────────┴→ quick-action 150      launch-counter 50 (non-critical)
public func bootstrapGraph() throws -> StepGraph {
    try StepGraph(steps: [
        hstep("auth-refresh", label: "Signing in", plugin: "auth-refresh"),
        hstep("config-fetch", label: "Loading settings", plugin: "config-fetch"),
        hstep("profile-sync", after: ["auth-refresh"]),
        hstep("launch-counter", critical: false, plugin: "launch-counter"),
        hstep("quick-action", after: ["config-fetch", "profile-sync"], plugin: "quick-action"),
    ])
}

public let bootstrapDurations = [
    "auth-refresh": 600, "config-fetch": 900, "profile-sync": 700, "launch-counter": 50, "quick-action": 150,
]

