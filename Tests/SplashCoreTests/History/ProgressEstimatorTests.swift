@testable import SplashCore
import TestSupport
import Testing

/// The estimator on recorded histories: launches are simulated on explicit instants, no sleeping.
@Suite struct ProgressEstimatorTests {
    /// Records `count` launches of `graph`, each with the durations `durations(i)` gives.
    func history(_ graph: StepGraph, count: Int = 3, settings: SplashSettings = SplashSettings(timeout: .seconds(60)),
                 durations: (Int) -> [String: Int]) -> [LaunchRecord] {
        (0..<count).map { index in
            var simulation = LaunchSimulation(graph: graph, settings: settings, launch: "past-\(index)", durations: durations(index))
            simulation.finish()
            return simulation.record
        }
    }

    /// Runs one more launch, estimating at every sample, and checks the estimate against the true
    /// elapsed fraction (elapsed / time to dismissing) before dismissing. Returns the samples.
    @discardableResult
    func expectTracksTime(
        _ estimator: ProgressEstimator, graph: StepGraph, durations: [String: Int],
        settings: SplashSettings = SplashSettings(timeout: .seconds(60)), tolerance: Double = 0.1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [LaunchSimulation.Sample<ProgressEstimator.Estimate>] {
        var simulation = LaunchSimulation(graph: graph, settings: settings, launch: "now", durations: durations)
        let samples = simulation.run(sampleEveryMs: 10) { machine, now in estimator.estimate(machine: machine, at: now) }
        let total = Double(simulation.record.dismissingAtMs ?? 0)
        #expect(total > 0, sourceLocation: sourceLocation)
        var worst = 0.0
        var worstAt = ""
        var kept = 0.0
        for sample in samples where Double(sample.ms) < total {
            let truth = Double(sample.ms) / total
            // What the machine publishes: the running maximum.
            kept = max(kept, sample.value.fraction)
            let error = max(abs(sample.value.fraction - truth), abs(kept - truth))
            if error > worst {
                worst = error
                worstAt = "at \(sample.ms)ms of \(Int(total))ms: estimate \(sample.value.fraction), kept \(kept), truth \(truth)"
            }
            #expect(sample.value.fraction < 1, "hit 1 at \(sample.ms)ms before dismissing", sourceLocation: sourceLocation)
        }
        #expect(worst <= tolerance, "worst error \(worst) \(worstAt), durations \(durations.sorted { $0.key < $1.key })", sourceLocation: sourceLocation)
        #expect(samples.filter(\.published).count >= 5, sourceLocation: sourceLocation)
        #expect(samples.last.map { $0.value.fraction == 1 } == true, "1 from dismissing on", sourceLocation: sourceLocation)
        return samples
    }

    @Test func afterThreeIdenticalLaunchesProgressTracksElapsedTime() throws {
        let graph = try bootstrapGraph()
        let estimator = ProgressEstimator(history: history(graph) { _ in bootstrapDurations }, graph: graph)
        #expect(estimator.hasHistory)
        #expect(estimator.expectedDuration(step: "profile-sync") == .milliseconds(700))
        let samples = expectTracksTime(estimator, graph: graph, durations: bootstrapDurations, tolerance: 0.05)
        // The path auth 600 → profile 700 → quick 150 decides: 1.45 s from the start.
        #expect(samples.first?.value.eta == .milliseconds(1450))
        #expect(samples.first?.value.fraction == 0)
    }

    /// History jittered ±20 % per step and launch; the new launch's steps each within ±20 % of what
    /// the history expects of them.
    @Test func jitteredDurationsStayWithinATenth() throws {
        let graph = try bootstrapGraph()
        for seed: UInt64 in 1...12 {
            var random = SplitMix64(state: seed)
            func jittered(_ base: [String: Int]) -> [String: Int] {
                var durations: [String: Int] = [:]
                for (id, ms) in base.sorted(by: { $0.key < $1.key }) {
                    durations[id] = Int((Double(ms) * Double.random(in: 0.8...1.2, using: &random)).rounded())
                }
                return durations
            }
            let past = (0..<3).map { _ in jittered(bootstrapDurations) }
            let estimator = ProgressEstimator(history: history(graph) { past[$0] }, graph: graph)
            var expected: [String: Int] = [:]
            for step in graph.steps { expected[step.id] = Int(try #require(estimator.expectedDuration(step: step.id)).milliseconds) }
            expectTracksTime(estimator, graph: graph, durations: jittered(expected))
        }
    }

    /// The extremes of ±20 %: every step 20 % slower, or 20 % faster, than expected.
    @Test(arguments: [0.8, 1.2])
    func uniformlySlowerOrFasterLaunchesStayWithinATenth(_ factor: Double) throws {
        let graph = try bootstrapGraph()
        let estimator = ProgressEstimator(history: history(graph) { _ in bootstrapDurations }, graph: graph)
        expectTracksTime(estimator, graph: graph, durations: bootstrapDurations.mapValues { Int(Double($0) * factor) })
    }

    @Test func theCriticalPathDominatesParallelBranches() throws {
        let graph = try StepGraph(steps: [
            hstep("a"), hstep("slow", after: ["a"]), hstep("fast", after: ["a"]), hstep("fast2", after: ["fast"]),
            hstep("join", after: ["slow", "fast2"]),
        ])
        let durations = ["a": 100, "slow": 2000, "fast": 200, "fast2": 100, "join": 100]
        let estimator = ProgressEstimator(history: history(graph) { _ in durations }, graph: graph)
        let samples = expectTracksTime(estimator, graph: graph, durations: durations, tolerance: 0.05)
        // Summing all durations (2500 ms) would say 0.44 halfway; the path (2200 ms) says 0.5.
        let halfway = try #require(samples.first { $0.ms == 1100 })
        #expect(abs(halfway.value.fraction - 0.5) < 0.01)
        #expect(halfway.value.eta == .milliseconds(1100))
    }

    @Test func minDisplayBoundsAFastLaunch() throws {
        let graph = try StepGraph(steps: [hstep("a"), hstep("b", after: ["a"])])
        let durations = ["a": 100, "b": 150]
        let settings = SplashSettings(minDisplay: .seconds(2), timeout: .seconds(60))
        let estimator = ProgressEstimator(history: history(graph, settings: settings) { _ in durations }, graph: graph)
        let samples = expectTracksTime(estimator, graph: graph, durations: durations, settings: settings, tolerance: 0.02)
        #expect(samples.first?.value.eta == .seconds(2))
        let late = try #require(samples.first { $0.ms == 1500 })
        #expect(abs(late.value.fraction - 0.75) < 0.01)
    }

    @Test func retriesInHistoryCountTowardTheStep() throws {
        let graph = try StepGraph(steps: [hstep("a", attempts: 3, backoff: 200), hstep("b", after: ["a"])])
        func plan(_ id: String, _ attempt: Int) -> LaunchSimulation.Attempt {
            id == "a" && attempt == 1 ? .fail(300, retryable: true, code: .network) : .ok(id == "a" ? 400 : 500)
        }
        let past = (0..<3).map { index in
            var simulation = LaunchSimulation(graph: graph, launch: "p\(index)", plan: plan)
            simulation.finish()
            return simulation.record
        }
        let estimator = ProgressEstimator(history: past, graph: graph)
        // 300 ms failed + 200 ms backoff + 400 ms second attempt.
        #expect(estimator.expectedDuration(step: "a") == .milliseconds(900))
        var simulation = LaunchSimulation(graph: graph, launch: "now", plan: plan)
        let samples = simulation.run { machine, now in estimator.estimate(machine: machine, at: now) }
        let total = Double(try #require(simulation.record.dismissingAtMs))
        #expect(total == 1400)
        for sample in samples where Double(sample.ms) < total {
            #expect(abs(sample.value.fraction - Double(sample.ms) / total) <= 0.05, "at \(sample.ms)ms")
        }
    }

    @Test func newerLaunchesWeighMore() throws {
        let graph = try StepGraph(steps: [hstep("a")])
        let past = history(graph, count: 3) { ["a": [1000, 2000, 4000][$0]] }
        // EWMA with alpha 0.5: 1000 → 1500 → 2750.
        #expect(ProgressEstimator(history: past, graph: graph).expectedDuration(step: "a") == .milliseconds(2750))
        #expect(ProgressEstimator(history: past, graph: graph, alpha: 1).expectedDuration(step: "a") == .milliseconds(4000))
    }

    @Test func aChangedGraphIgnoresOldHistory() throws {
        let old = try bootstrapGraph()
        let past = history(old) { _ in bootstrapDurations }
        let changed = try StepGraph(steps: old.steps.map { spec in
            var spec = spec
            if spec.id == "quick-action" { spec.after = ["config-fetch"] }
            return spec
        })
        #expect(LaunchRecord.fingerprint(of: changed) != LaunchRecord.fingerprint(of: old))
        let estimator = ProgressEstimator(history: past, graph: changed)
        #expect(!estimator.hasHistory)
        #expect(estimator.expectedDuration(step: "auth-refresh") == nil)
        var simulation = LaunchSimulation(graph: changed, durations: bootstrapDurations)
        let samples = simulation.run { machine, now in (estimator.estimate(machine: machine, at: now), machine.progress) }
        for sample in samples where sample.value.1 < 1 {
            #expect(sample.value.0.eta == nil)
            #expect(sample.value.0.fraction == sample.value.1, "equal weights, as the machine computes them")
        }
    }

    @Test func withoutHistoryDoneStepsCountOneAndRunningOnesTheirReport() throws {
        let graph = try StepGraph(steps: [hstep("a"), hstep("b", after: ["a"]), hstep("c", after: ["b"]), hstep("d", after: ["c"])])
        let estimator = ProgressEstimator(history: [], graph: graph)
        #expect(!estimator.hasHistory)
        var harness = try MachineHarness(graph.steps, settings: SplashSettings(timeout: .seconds(60)))
        harness.succeed("a", at: 100)
        harness.record(harness.machine.stepReported(token: harness.runs["b"]!.token, fraction: 0.5, at: .milliseconds(150)))
        let estimate = estimator.estimate(machine: harness.machine, at: .milliseconds(150))
        #expect(estimate == ProgressEstimator.Estimate(fraction: 0.375, eta: nil))
        #expect(harness.machine.progress == 0.375)
    }

    @Test func aHardErrorPromisesNoTimeAndDismissingIsOne() throws {
        let graph = try StepGraph(steps: [hstep("a"), hstep("b", after: ["a"])])
        let estimator = ProgressEstimator(history: history(graph) { _ in ["a": 100, "b": 100] }, graph: graph)
        var simulation = LaunchSimulation(graph: graph, launch: "broken") { id, _ in id == "b" ? .fail(50) : .ok(100) }
        simulation.run(until: { $0.phase == .error }) { _, _ in () }
        #expect(simulation.machine.phase == .error)
        let stuck = estimator.estimate(machine: simulation.machine, at: simulation.now + .seconds(30))
        #expect(stuck.eta == nil)
        #expect(stuck.fraction == 0.5)
        try simulation.command(.continueOffline)
        #expect(simulation.machine.phase == .dismissing)
        #expect(estimator.estimate(machine: simulation.machine, at: simulation.now) == ProgressEstimator.Estimate(fraction: 1, eta: .zero))
    }

    @Test func anOverrunningStepNeverReachesOneWhileLoading() throws {
        let graph = try StepGraph(steps: [hstep("a")])
        let estimator = ProgressEstimator(history: history(graph) { _ in ["a": 100] }, graph: graph)
        var simulation = LaunchSimulation(graph: graph, launch: "hung") { _, _ in .ok(20_000) }
        let samples = simulation.run(sampleEveryMs: 250, until: { _ in false }) { machine, now in
            (machine.phase, estimator.estimate(machine: machine, at: now))
        }
        let loading = samples.filter { $0.value.0 == .loading }
        #expect(loading.count > 40)
        for sample in loading { #expect(sample.value.1.fraction < 0.96, "at \(sample.ms)ms") }
        #expect(loading.allSatisfy { $0.value.1.eta.map { $0 > .zero } == true })
    }

    @Test func expectedDurationsFollowTheHistory() throws {
        let graph = try bootstrapGraph()
        let estimator = ProgressEstimator(history: history(graph) { _ in bootstrapDurations }, graph: graph)
        #expect(graph.steps.map { estimator.expectedDuration(step: $0.id)?.milliseconds } == [600, 900, 700, 50, 150])
    }
}
