import SplashCore
import SplashProtocol
import Testing

/// Every row of the phase table, at the instants the contract names.
@Suite struct LaunchMachinePhaseTests {
    let settings = SplashSettings(
        minDisplay: .seconds(1), slowAfter: .milliseconds(800), timeout: .seconds(10),
        exitAnimation: .milliseconds(300), allowOffline: true
    )

    @Test func loadingToDismissingWhenLastStepSucceedsAfterMinDisplay() throws {
        var h = try MachineHarness([step("a"), step("b", after: ["a"])], settings: settings)
        #expect(h.phase == .loading)
        #expect(h.isRunning("a") && h.status("b") == .pending)
        h.succeed("a", at: 400)
        #expect(h.isRunning("b"))
        h.succeed("b", at: 1500)
        #expect(h.phase == .dismissing)
        #expect(h.machine.dismissingSince == .milliseconds(1500))
        #expect(h.machine.progress == 1)
    }

    @Test func fastLaunchWaitsForMinDisplayAndDismissesExactlyThen() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        h.succeed("a", at: 100)
        #expect(h.phase == .loading)
        // Its work is done: it waits out min_display, and slow_after does not matter any more.
        #expect(h.machine.nextDeadline == .seconds(1))
        h.at(800)
        #expect(!h.machine.slow, "a launch whose work took 100 ms is not slow")
        #expect(h.machine.nextDeadline == .seconds(1))
        // A late timer still records the transition at the min_display instant.
        h.at(1003)
        #expect(h.phase == .dismissing)
        #expect(h.machine.dismissingSince == .seconds(1))
    }

    @Test func dismissingToFinishedOnDismissedAck() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        h.succeed("a", at: 1200)
        try h.command(.dismissed, at: 1250)
        #expect(h.phase == .finished)
        #expect(h.machine.destination == Destination(screen: .home))
        #expect(h.machine.snapshot(at: h.now).destination == Destination(screen: .home))
    }

    @Test func dismissingToFinishedAfterExitAnimation() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        h.succeed("a", at: 1200)
        h.at(1499)
        #expect(h.phase == .dismissing)
        h.at(1500)
        #expect(h.phase == .finished)
        #expect(h.events.contains(.launchFinished(launch: "L1", destination: Destination(screen: .home), elapsed: .milliseconds(1500))))
    }

    @Test func slowTurnsTrueAtSlowAfter() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        h.at(799)
        #expect(!h.machine.slow)
        h.at(800)
        #expect(h.machine.slow)
        #expect(h.machine.snapshot(at: h.now).slow)
    }

    /// Issue 25: the demo's first launch (work done in 5 ms, min_display 1 s) ended "slow: yes",
    /// and the page, the history and the traces all said slow.
    @Test func aLaunchWaitingOnlyOutMinDisplayIsNeverSlow() throws {
        let settings = SplashSettings(minDisplay: .seconds(2), slowAfter: .seconds(1), timeout: .seconds(10))
        var h = try MachineHarness([step("a")], settings: settings)
        h.succeed("a", at: 5)
        h.at(1500)
        #expect(!h.machine.slow && !h.machine.snapshot(at: h.now).slow)
        h.at(2000)
        #expect(h.phase == .dismissing && !h.machine.snapshot(at: h.now).slow)
    }

    @Test func onlyPendingCriticalWorkMakesALaunchSlow() throws {
        var critical = try MachineHarness([step("a"), step("extra", critical: false)], settings: settings)
        critical.succeed("extra", at: 100)
        critical.at(800)
        #expect(critical.machine.slow, "a critical step still runs")

        var optional = try MachineHarness([step("a"), step("extra", critical: false)], settings: settings)
        optional.succeed("a", at: 100)
        optional.at(900)
        #expect(!optional.machine.slow, "only a non-critical step is left")
    }

    @Test func newerFactsOfASucceededStepMoveTheDestinationUntilDismissing() throws {
        var h = try MachineHarness([step("links"), step("wait", after: ["links"])], settings: settings)
        h.succeed("links", facts: ["route": .string("a")], at: 10)
        let amended = h.machine.amendFacts(["route": .string("b")], ofStep: "links", at: .milliseconds(20))
        #expect(amended != nil)
        #expect(h.machine.amendFacts(["route": .string("c")], ofStep: "wait", at: .milliseconds(20)) == nil, "not succeeded")
        h.succeed("wait", at: 1200)
        #expect(h.phase == .dismissing && h.machine.destination?.route == "b")
        #expect(h.machine.amendFacts(["route": .string("c")], ofStep: "links", at: .milliseconds(1250)) == nil, "too late")
        #expect(h.machine.destination?.route == "b")
    }

    @Test func criticalFailureIsAHardErrorThatStopsOtherWork() throws {
        var h = try MachineHarness([step("a"), step("b"), step("c", after: ["a"])], settings: settings)
        h.fail("a", at: 300)
        #expect(h.phase == .error)
        #expect(h.machine.error?.code == .stepFailed)
        #expect(h.machine.error?.step == "a")
        #expect(h.machine.error?.actions == [.retry, .continueOffline])
        #expect(h.status("c") == .skipped)
        // b was running: cancelled, back to pending until retry.
        #expect(h.cancelled == ["b"])
        #expect(h.status("b") == .pending)
        // Nothing runs, nothing times out, until retry.
        #expect(h.machine.nextDeadline == nil)
        h.at(60_000)
        #expect(h.phase == .error && h.status("b") == .pending)
    }

    @Test func networkFailureSaysUnableToConnect() throws {
        var h = try MachineHarness([step("auth")], settings: settings)
        h.fail("auth", code: .network, at: 300)
        #expect(h.machine.error?.code == .network)
        #expect(h.machine.error?.message == "Unable to connect")
        #expect(h.machine.snapshot(at: h.now).message == "Unable to connect")
    }

    @Test func retryReRunsFailedSkippedAndUnfinishedStepsKeepingSucceededFacts() throws {
        var h = try MachineHarness([step("a"), step("b"), step("c", after: ["a"]), step("d")], settings: settings)
        h.succeed("d", facts: ["x": true], at: 100)
        h.fail("a", at: 300)
        #expect(h.phase == .error)
        try h.command(.retry, at: 2000)
        #expect(h.phase == .loading)
        #expect(h.isRunning("a") && h.isRunning("b") && h.status("c") == .pending)
        #expect(h.status("d") == .succeeded)
        #expect(h.machine.steps[3].facts == ["x": true])
        #expect(h.attempt("a") == 2)
        #expect(!h.machine.slow)
        h.succeed("a", at: 2100)
        h.succeed("b", at: 2100)
        h.succeed("c", at: 2200)
        #expect(h.phase == .dismissing)
        #expect(h.phaseChanges == [.error, .loading, .dismissing])
    }

    @Test func softTimeoutKeepsWorkRunningAndDismissesByItself() throws {
        var h = try MachineHarness([step("a", timeout: 30_000)], settings: settings)
        h.at(10_000)
        #expect(h.phase == .error)
        #expect(h.machine.error?.code == .timeout)
        #expect(h.machine.error?.message == "This is taking longer than expected")
        #expect(h.machine.error?.step == "a")
        #expect(h.isRunning("a"))
        #expect(h.cancelled.isEmpty)
        h.succeed("a", at: 12_000)
        #expect(h.phase == .dismissing)
        #expect(h.machine.error == nil)
    }

    @Test func softTimeoutTurnsHardWhenACriticalStepThenFails() throws {
        var h = try MachineHarness([step("a", timeout: 30_000)], settings: settings)
        h.at(10_000)
        h.fail("a", at: 11_000)
        #expect(h.phase == .error)
        #expect(h.machine.error?.code == .stepFailed)
        #expect(h.machine.nextDeadline == nil)
    }

    @Test func retryDuringSoftTimeoutRestartsTheHangingStep() throws {
        var h = try MachineHarness([step("a", timeout: 30_000)], settings: settings)
        h.at(10_000)
        try h.command(.retry, at: 10_500)
        #expect(h.cancelled == ["a"])
        #expect(h.isRunning("a") && h.attempt("a") == 2)
        #expect(h.machine.nextDeadline == .milliseconds(10_500 + 800))
    }

    @Test func continueOfflineSkipsFailedCriticalStepsAndDismisses() throws {
        var h = try MachineHarness([step("auth"), step("config", critical: false), step("after", after: ["auth"])], settings: settings)
        h.succeed("config", facts: ["first_launch": false], at: 100)
        h.fail("auth", code: .network, at: 300)
        try h.command(.continueOffline, at: 400)
        #expect(h.phase == .dismissing)
        #expect(h.status("auth") == .skipped)
        #expect(h.status("after") == .skipped)
        try h.command(.dismissed, at: 500)
        #expect(h.machine.destination?.screen == .home)
    }

    @Test func continueOfflineFromSoftTimeoutCancelsRunningSteps() throws {
        var h = try MachineHarness([step("a", timeout: 30_000)], settings: settings)
        h.at(10_000)
        try h.command(.continueOffline, at: 10_100)
        #expect(h.cancelled == ["a"])
        #expect(h.status("a") == .skipped)
        #expect(h.phase == .dismissing)
    }

    @Test func relaunchStartsANewLaunchFromScratch() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        h.succeed("a", at: 1000)
        try h.command(.dismissed, at: 1100)
        let seqBefore = h.machine.seq
        try h.command(.relaunch(launch: "L2"), at: 5000)
        #expect(h.phase == .loading)
        #expect(h.machine.launch == "L2")
        #expect(h.machine.progress == 0)
        #expect(h.isRunning("a") && h.attempt("a") == 1)
        #expect(h.machine.seq > seqBefore)
        #expect(h.machine.snapshot(at: h.now).elapsedMs == 0)
    }
}
