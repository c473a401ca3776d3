/// Progress and time left for a running launch, from what past launches of the same graph cost.
///
/// Each step's expected duration is an exponentially weighted mean of its wall time (first
/// attempt's start to its end, retries included) over past records of a graph with the same
/// fingerprint, newest weighted most. The time left is the longest path through the part of the
/// graph that has not finished — steps run as soon as their dependencies succeed, so parallel
/// branches overlap and the critical path decides — and never less than what `min_display` still
/// requires. Progress is then `elapsed / (elapsed + left)`, which tracks the fraction of the
/// launch's time that has passed.
///
/// Without history the estimate falls back to equal weights: done steps count 1, running ones the
/// fraction their plugin reported (at most 0.95), as `LaunchMachine` does by itself; `eta` is nil.
/// While loading the fraction stays below 1 (at most `cap`); it is 1 from `dismissing` on. The
/// Expected durations are scaled by the pace of this launch so far (see `pace`). The
/// machine keeps the maximum of what it was given, so the estimate errs late rather than early:
/// a running step near or past its expected time is still given a twentieth of its time so far
/// (so a step that overruns keeps progress below 0.96 instead of pinning it at the cap).
public struct ProgressEstimator: Sendable {
    /// The result of `estimate(machine:at:)`.
    public struct Estimate: Sendable, Equatable {
        /// 0...1; below 1 until the launch is dismissing.
        public var fraction: Double
        /// Expected time until the splash can be dismissed; nil without history (or in a hard error,
        /// which waits on the user).
        public var eta: Duration?
    }

    /// The highest fraction reported before `dismissing`.
    public static let cap = 0.99
    /// Used for a step with no past duration when no step has one either.
    public static let fallbackDuration: Duration = .milliseconds(500)

    public let graph: StepGraph
    /// Expected duration by step index; nil for a step without usable history.
    private let expected: [Duration?]
    /// Stand-in for steps without history: the mean of the known ones.
    private let unknownDuration: Duration
    /// Whether at least one past record of this graph was found.
    public let hasHistory: Bool

    /// - Parameters:
    ///   - history: past records, oldest first (as `HistoryLog.records`); other graphs' are ignored.
    ///   - alpha: weight of the newest launch in the mean, 0 < alpha ≤ 1.
    public init(history: [LaunchRecord], graph: StepGraph, alpha: Double = 0.5) {
        let alpha = alpha.isFinite ? min(1, max(0.01, alpha)) : 0.5
        let fingerprint = LaunchRecord.fingerprint(of: graph)
        let matching = history.filter { $0.graphFingerprint == fingerprint }
        var means: [Double?] = Array(repeating: nil, count: graph.steps.count)
        for record in matching {
            for step in record.steps {
                guard let index = graph.index(of: step.id), let sample = Self.sampleMs(step) else { continue }
                if let mean = means[index] {
                    means[index] = alpha * sample + (1 - alpha) * mean
                } else {
                    means[index] = sample
                }
            }
        }
        self.graph = graph
        self.hasHistory = !matching.isEmpty
        self.expected = means.map { $0.map { Duration.microseconds(Int64(($0 * 1000).rounded())) } }
        let known = means.compactMap { $0 }
        self.unknownDuration = known.isEmpty
            ? Self.fallbackDuration
            : .microseconds(Int64((known.reduce(0, +) / Double(known.count) * 1000).rounded()))
    }

    /// The expected wall time of step `id`, if the history knows it.
    public func expectedDuration(step id: String) -> Duration? {
        graph.index(of: id).flatMap { expected[$0] }
    }

    /// Progress and time left of the launch `machine` runs, at `now` (the machine's time base).
    public func estimate(machine: LaunchMachine, at now: Duration) -> Estimate {
        switch machine.phase {
        case .dismissing, .finished:
            return Estimate(fraction: 1, eta: hasHistory ? .zero : nil)
        case .error where !machine.workMayRun:
            // Nothing runs until the user acts: report the work that will not be redone, promise no time.
            return Estimate(fraction: min(Self.cap, Self.workFraction(machine, succeededOnly: true)), eta: nil)
        case .loading, .error:
            break
        }
        guard hasHistory else { return Estimate(fraction: min(Self.cap, Self.workFraction(machine)), eta: nil) }
        let elapsed = max(.zero, now - machine.launchStartedAt)
        let untilMinDisplay = machine.settings.minDisplay - elapsed
        let eta = max(remainingPath(machine, at: now), untilMinDisplay, .zero)
        let total = (elapsed + eta).seconds
        let fraction = total > 0 ? elapsed.seconds / total : 0
        return Estimate(fraction: min(Self.cap, max(0, fraction)), eta: eta)
    }

    /// The wall time of a past step, when it says something about the step's cost: it ran to a
    /// result (succeeded, or failed for good) without being stopped from outside.
    static func sampleMs(_ step: StepRecord) -> Double? {
        guard step.status == .succeeded || step.status == .failed, !step.wasCancelled,
            let duration = step.durationMs
        else { return nil }
        return Double(duration)
    }

    /// The longest chain of remaining work, from `now`, through the steps not finished yet.
    private func remainingPath(_ machine: LaunchMachine, at now: Duration) -> Duration {
        let scale = pace(machine)
        var finish = Array(repeating: Duration.zero, count: graph.steps.count)
        var longest = Duration.zero
        for index in graph.order {
            let state = machine.steps[index]
            let expected = (self.expected[index] ?? unknownDuration) * scale
            let own: Duration
            switch state.status {
            case .succeeded, .failed, .skipped:
                continue
            case .running:
                let soFar = max(.zero, now - (state.startedAt ?? now))
                let floor = max(max(expected, soFar) / 20, .milliseconds(10))
                var left = max(expected - soFar, floor)
                if soFar > expected, state.fraction > 0, state.fraction < 1, state.retryAt == nil {
                    // Overrun: the plugin's own report is the better guide.
                    left = max(floor, soFar * ((1 - state.fraction) / state.fraction))
                }
                own = left
            case .pending:
                own = expected
            }
            let ready = graph.dependencies[index].map { finish[$0] }.max() ?? .zero
            finish[index] = ready + own
            longest = max(longest, finish[index])
        }
        return longest
    }

    /// How this launch runs compared with the history: actual / expected time of the steps that
    /// succeeded so far (within 0.5...2), trusted in proportion to the share of the expected work
    /// they make up, and then only half: a device that is slow today tends to be slow for every
    /// step, but steps also vary on their own, and one noisy step early on should move little.
    private func pace(_ machine: LaunchMachine) -> Double {
        var total = 0.0
        var doneExpected = 0.0
        var doneActual = 0.0
        for (index, state) in machine.steps.enumerated() {
            let expected = (self.expected[index] ?? unknownDuration).seconds
            total += expected
            guard state.status == .succeeded, self.expected[index] != nil,
                let start = state.startedAt, let end = state.endedAt
            else { continue }
            doneExpected += expected
            doneActual += (end - start).seconds
        }
        guard doneExpected > 0, total > 0 else { return 1 }
        let ratio = min(2, max(0.5, doneActual / doneExpected))
        return 1 + (ratio - 1) * (doneExpected / total) / 2
    }

    /// Equal-weight progress, the measure without history (the machine's own too): done steps
    /// count 1, running ones the fraction their plugin reported (at most 0.95).
    static func workFraction(_ machine: LaunchMachine, succeededOnly: Bool = false) -> Double {
        guard !machine.steps.isEmpty else { return 0 }
        var done = 0.0
        for state in machine.steps {
            switch state.status {
            case .succeeded: done += 1
            case .failed, .skipped: done += succeededOnly ? 0 : 1
            case .running: done += min(state.fraction, 0.95)
            case .pending: break
            }
        }
        return done / Double(machine.steps.count)
    }
}
