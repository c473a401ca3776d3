import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// `LaunchRecorder` fed with the events of a real `LaunchMachine`.
@Suite struct LaunchRecorderTests {
    @Test func aCleanLaunchRecordsEveryAttemptPhaseAndTheDestination() throws {
        let graph = try bootstrapGraph()
        var simulation = LaunchSimulation(graph: graph, launch: "6f1c2a3b-0000", durations: bootstrapDurations)
        simulation.finish()
        let record = simulation.record
        #expect(record.launch == "6f1c2a3b-0000")
        #expect(record.startedAtUnixMs == 1_714_555_800_000)
        #expect(record.graphFingerprint == LaunchRecord.fingerprint(of: graph))
        #expect(record.minDisplayMs == 1000)
        #expect(record.phases.map(\.phase) == [.loading, .dismissing, .finished])
        #expect(record.phases.map(\.atMs) == [0, 1450, 1750])
        #expect(record.dismissingAtMs == 1450)
        #expect(record.finishedAtMs == 1750)
        #expect(record.destination == Destination(screen: .home))
        let profile = try #require(record.step("profile-sync"))
        #expect(profile.after == ["auth-refresh"])
        #expect(profile.status == .succeeded)
        #expect(profile.attempts == [StepRecord.Attempt(attempt: 1, startMs: 600, endMs: 1300, outcome: .succeeded)])
        #expect(record.step("auth-refresh")?.label == "Signing in")
        #expect(record.step("auth-refresh")?.plugin == "auth-refresh")
        #expect(record.step("launch-counter")?.critical == false)
        #expect(record.steps.map(\.id) == graph.steps.map(\.id))
    }

    @Test func retriesKeepEveryAttemptWithItsFailure() throws {
        let graph = try StepGraph(steps: [hstep("a", attempts: 3, backoff: 200)])
        var simulation = LaunchSimulation(graph: graph) { _, attempt in
            attempt < 3 ? .fail(100, retryable: true, code: .network) : .ok(100)
        }
        simulation.finish()
        let step = try #require(simulation.record.step("a"))
        // 0–100 fails, backoff 200; 300–400 fails, backoff 400; 800–900 succeeds.
        #expect(step.attempts.map(\.startMs) == [0, 300, 800])
        #expect(step.attempts.map(\.endMs) == [100, 400, 900])
        #expect(step.attempts.map(\.outcome) == [.failed, .failed, .succeeded])
        #expect(step.attempts[0].code == "network")
        #expect(step.attempts[0].reason == "broke")
        #expect(step.status == .succeeded)
        #expect(step.durationMs == 900)
        #expect(step.attemptCount == 3)
    }

    @Test func aHardErrorAndAUserRetryAreRecorded() throws {
        let graph = try StepGraph(steps: [hstep("auth"), hstep("sync", after: ["auth"]), hstep("slow")])
        var simulation = LaunchSimulation(graph: graph) { id, attempt in
            switch (id, attempt) {
            case ("auth", 1): .fail(200, code: .network)
            case ("slow", _): .ok(500)
            default: .ok(100)
            }
        }
        simulation.run(until: { $0.phase == .error }) { _, _ in () }
        var record = simulation.record
        #expect(record.phases.last == LaunchRecord.PhaseMark(phase: .error, atMs: 200, code: "network", step: "auth"))
        #expect(record.step("auth")?.status == .failed)
        // The hard error cancelled the step still running; the dependant was skipped.
        #expect(record.step("slow")?.attempts.last?.outcome == .cancelled)
        #expect(record.step("slow")?.status == .pending)
        #expect(record.step("sync")?.status == .skipped)
        #expect(record.step("sync")?.skipReason == "auth failed")
        #expect(record.lastError?.code == "network")

        try simulation.command(.retry)
        simulation.finish()
        record = simulation.record
        #expect(record.phases.map(\.phase) == [.loading, .error, .loading, .dismissing, .finished])
        #expect(record.step("auth")?.attempts.map(\.outcome) == [.failed, .succeeded])
        #expect(record.step("sync")?.status == .succeeded)
        #expect(record.step("sync")?.skipReason == nil)
        #expect(record.step("slow")?.attempts.map(\.attempt) == [1, 2])
        #expect(record.destination != nil)
    }

    @Test func continueOfflineSkipsWhatIsLeft() throws {
        let graph = try StepGraph(steps: [hstep("auth"), hstep("sync", after: ["auth"]), hstep("extra", critical: false)])
        var simulation = LaunchSimulation(graph: graph) { id, _ in id == "auth" ? .fail(100) : .ok(1000) }
        simulation.run(until: { $0.phase == .error }) { _, _ in () }
        try simulation.command(.continueOffline)
        simulation.finish()
        let record = simulation.record
        #expect(record.dismissingAtMs == 100)
        #expect(record.step("auth")?.status == .skipped)
        #expect(record.step("auth")?.skipReason == "continued offline")
        #expect(record.step("extra")?.status == .skipped)
        #expect(record.step("extra")?.attempts.first?.outcome == .cancelled)
        #expect(record.steps.allSatisfy { $0.status.isTerminal })
        #expect(record.steps.allSatisfy { $0.attempts.allSatisfy { $0.endMs != nil } })
    }

    @Test func unknownStepsAreIgnoredAndAttemptsStayBounded() throws {
        let graph = try StepGraph(steps: [hstep("a")])
        var recorder = LaunchRecorder(launch: "x", startedAtUnixMs: 0, graph: graph, settings: SplashSettings())
        recorder.attemptStarted(step: "nope", attempt: 1, atMs: 1)
        for attempt in 1...100 {
            recorder.attemptStarted(step: "a", attempt: attempt, atMs: Int64(attempt * 10))
            recorder.attemptEnded(step: "a", attempt: attempt, atMs: Int64(attempt * 10 + 5), outcome: .failed, code: "x", willRetry: true)
        }
        for index in 0..<200 { recorder.phaseChanged(to: index.isMultiple(of: 2) ? .error : .loading, atMs: Int64(index)) }
        let step = try #require(recorder.record.step("a"))
        #expect(step.attempts.count == LaunchRecorder.maxAttemptsPerStep)
        #expect(step.attempts.first?.attempt == 1)
        #expect(step.attempts.last?.attempt == 100)
        #expect(step.attemptCount == 100)
        #expect(step.status == .running)
        #expect(recorder.record.steps.count == 1)
        #expect(recorder.record.phases.count == LaunchRecorder.maxPhaseMarks)
        #expect(recorder.record.phases.first == LaunchRecord.PhaseMark(phase: .loading, atMs: 0))
    }
}
