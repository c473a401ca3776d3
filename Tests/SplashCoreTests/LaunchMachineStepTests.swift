import SplashCore
import SplashProtocol
import Testing

/// Scheduling, retries, timeouts, skips, progress and messages.
@Suite struct LaunchMachineStepTests {
    @Test func independentStepsStartTogetherAndDependantsAsSoonAsReady() throws {
        var h = try MachineHarness([step("a"), step("b"), step("c", after: ["a", "b"]), step("d", after: ["a"])])
        #expect(h.isRunning("a") && h.isRunning("b"))
        h.succeed("a", at: 50)
        #expect(h.isRunning("d") && h.status("c") == .pending)
        h.succeed("b", at: 60)
        #expect(h.isRunning("c"))
        #expect(h.runs["c"]!.dependencyFacts.keys.sorted() == ["a", "b"])
    }

    @Test func dependencyFactsAreHandedOn() throws {
        var h = try MachineHarness([step("a"), step("b", after: ["a"])])
        h.succeed("a", facts: ["user": "Ada"], at: 10)
        #expect(h.runs["b"]!.dependencyFacts == ["a": ["user": "Ada"]])
    }

    @Test func retryableFailureRetriesWithDoublingBackoff() throws {
        var h = try MachineHarness([step("a", attempts: 3, backoff: 200)])
        h.fail("a", retryable: true, at: 100)
        #expect(h.status("a") == .running && !h.isRunning("a"))
        #expect(h.machine.snapshot(at: h.now).steps[0].reason == "retrying after: a broke")
        #expect(h.machine.nextDeadline == .milliseconds(300))
        h.at(299)
        #expect(h.attempt("a") == 1)
        h.at(300)
        #expect(h.isRunning("a") && h.attempt("a") == 2)
        h.fail("a", retryable: true, at: 350)
        #expect(h.machine.nextDeadline == .milliseconds(750))  // backoff doubled: 400 ms
        h.at(750)
        #expect(h.attempt("a") == 3)
        h.fail("a", retryable: true, at: 800)
        #expect(h.status("a") == .failed)  // three attempts, counting the first
        #expect(h.phase == .error)
    }

    @Test func permanentFailureIsNotRetried() throws {
        var h = try MachineHarness([step("a", attempts: 5)])
        h.fail("a", retryable: false, at: 100)
        #expect(h.status("a") == .failed && h.attempt("a") == 1)
    }

    @Test func attemptTimeoutCancelsAndRetries() throws {
        var h = try MachineHarness([step("a", timeout: 500, attempts: 2, backoff: 100)])
        h.at(500)
        #expect(h.cancelled == ["a"])
        h.at(600)
        #expect(h.isRunning("a") && h.attempt("a") == 2)
        h.at(1100)
        #expect(h.status("a") == .failed)
        #expect(h.machine.steps[0].failure?.code == .stepTimeout)
    }

    @Test func staleResultsOfCancelledAttemptsAreIgnored() throws {
        var h = try MachineHarness([step("a", timeout: 500, attempts: 2, backoff: 100)])
        let first = h.runs["a"]!.token
        h.at(500)
        let actions = h.machine.stepFinished(token: first, result: .success([:]), at: .milliseconds(550))
        #expect(actions.isEmpty)
        #expect(h.status("a") == .running)
    }

    @Test func optionalFailureDoesNotBlockDismissingButSkipsDependants() throws {
        var h = try MachineHarness([step("a"), step("opt", critical: false), step("child", after: ["opt"], critical: false)])
        h.fail("opt", at: 100)
        #expect(h.status("child") == .skipped)
        h.succeed("a", at: 1200)
        #expect(h.phase == .dismissing)
    }

    @Test func criticalStepSkippedBecauseOptionalDependencyFailedIsAnError() throws {
        var h = try MachineHarness([step("opt", critical: false), step("crit", after: ["opt"])])
        h.fail("opt", at: 100)
        #expect(h.phase == .error)
        #expect(h.machine.error?.code == .stepSkipped)
        #expect(h.machine.error?.step == "crit")
    }

    @Test func emptyGraphDismissesAtMinDisplay() throws {
        var h = try MachineHarness([])
        #expect(h.machine.nextDeadline == .seconds(1))
        h.at(1000)
        #expect(h.phase == .dismissing)
    }

    @Test func progressNeverDecreasesAndIsOneOnlyFromDismissing() throws {
        var h = try MachineHarness([step("a"), step("b"), step("c", after: ["a"]), step("d", attempts: 2)])
        h.record(h.machine.stepReported(token: h.runs["a"]!.token, fraction: 0.9, at: .milliseconds(10)))
        h.fail("d", retryable: true, at: 20)
        h.succeed("a", at: 30)
        h.record(h.machine.stepReported(token: h.runs["c"]!.token, fraction: 0.2, at: .milliseconds(40)))
        h.at(220)
        h.succeed("d", at: 300)
        h.succeed("b", at: 400)
        #expect(h.machine.progress < 1)
        h.succeed("c", at: 1100)
        #expect(h.phase == .dismissing)
        #expect(h.progressSeen == h.progressSeen.sorted())
        #expect(h.progressSeen.dropLast().allSatisfy { $0 < 1 })
        #expect(h.progressSeen.last == 1)
    }

    @Test func messageIsTheRunningStepsReportOrLabel() throws {
        var h = try MachineHarness([step("auth", label: "Signing in")])
        #expect(h.machine.snapshot(at: .zero).message == "Signing in")
        h.record(h.machine.stepReported(token: h.runs["auth"]!.token, message: "Refreshing token", at: .milliseconds(5)))
        #expect(h.machine.snapshot(at: .zero).message == "Refreshing token")
    }

    @Test func seqGrowsByOneWithEveryPublishedChange() throws {
        var h = try MachineHarness([step("a"), step("b")])
        let start = h.machine.seq
        h.succeed("a", at: 10)
        h.succeed("b", at: 20)
        h.at(1000)
        #expect(h.machine.seq == start + UInt64(h.publishes) - 1)
        // No change, no publish.
        let seq = h.machine.seq
        h.record(h.machine.advance(to: .milliseconds(1001)))
        #expect(h.machine.seq == seq)
    }

    @Test func snapshotReportsStepDurationsAndReasons() throws {
        var h = try MachineHarness([step("a", critical: false), step("b", after: ["a"], critical: false), step("c")])
        h.fail("a", at: 250)
        let snapshot = h.machine.snapshot(at: .milliseconds(400))
        #expect(snapshot.steps[0].durationMs == 250)
        #expect(snapshot.steps[0].reason == "a broke")
        #expect(snapshot.steps[1].status == .skipped && snapshot.steps[1].reason == "a failed")
        #expect(snapshot.steps[2].durationMs == 400)
        #expect(snapshot.elapsedMs == 400)
    }
}

@Suite struct LaunchMachineTickTests {
    @Test func publishesAtLeastEveryTickWhileStepsRunAndNotAfter() throws {
        var h = try MachineHarness([step("a", timeout: 60_000), step("b", timeout: 60_000)])
        h.machine.tickInterval = .milliseconds(100)
        h.record(h.machine.advance(to: .zero))
        let before = h.publishes
        h.at(100)
        h.at(200)
        h.at(250)
        #expect(h.publishes == before + 2)
        // A change in between resets the tick: the next one is 100 ms after it.
        h.succeed("a", at: 270)
        #expect(h.machine.nextDeadline == .milliseconds(370))
        h.succeed("b", at: 300)
        // Nothing runs: no ticks, only the real deadlines (min_display at 1 s).
        #expect(h.machine.nextDeadline == .seconds(1))
    }

    @Test func aLateTimerCatchesUpWithoutLooping() throws {
        var h = try MachineHarness([step("a", timeout: 60_000)])
        h.machine.tickInterval = .milliseconds(100)
        let before = h.publishes
        h.at(5_000)  // one advance over many ticks and slow_after
        #expect(h.publishes > before)
        #expect(h.machine.slow)
    }
}

@Suite struct LaunchMachineHistoryTickTests {
    @Test func withHistoryTheBarKeepsMovingThroughMinDisplay() throws {
        var h = try MachineHarness([step("a")])
        var recorder = LaunchRecorder(launch: "old", startedAtUnixMs: 0, graph: h.machine.graph, settings: h.machine.settings)
        recorder.attemptStarted(step: "a", attempt: 1, atMs: 0)
        recorder.attemptEnded(step: "a", attempt: 1, atMs: 100, outcome: .succeeded)
        recorder.phaseChanged(to: .dismissing, atMs: 1000)
        recorder.finished(destination: Destination(screen: .home), atMs: 1300)
        h.machine.estimator = ProgressEstimator(history: [recorder.record], graph: h.machine.graph)
        h.machine.tickInterval = .milliseconds(100)
        h.succeed("a", at: 100)
        #expect(h.machine.nextDeadline == .milliseconds(200), "ticks while waiting out min_display")
        let before = h.progressSeen.count
        for ms in stride(from: 200, through: 900, by: 100) { h.at(ms) }
        let waiting = Array(h.progressSeen.dropFirst(before))
        #expect(waiting.count == 8)
        #expect(waiting == waiting.sorted() && waiting.last! > waiting.first!)
        #expect(h.machine.eta != nil)
        h.at(1000)
        #expect(h.phase == .dismissing)
    }
}
