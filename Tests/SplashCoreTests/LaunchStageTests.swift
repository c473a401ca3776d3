import SplashCore
import SplashProtocol
import Testing

/// The machine's stage carries exactly the data of its phase, and a launch's start resets what
/// clients sent for the last one before any attempt starts.
@Suite struct LaunchStageTests {
    let settings = SplashSettings(
        minDisplay: .seconds(1), slowAfter: .milliseconds(800), timeout: .seconds(10),
        exitAnimation: .milliseconds(300), allowOffline: true
    )

    @Test func aRelaunchResetsClientInputsBeforeItsFirstAttempt() throws {
        var machine = LaunchMachine(graph: try StepGraph(steps: [step("a")]), settings: settings)
        let actions = machine.start(launch: "L1", at: .zero)
        #expect(!actions.contains(.resetLaunchInputs), "the first launch has nothing before it to forget")
        _ = machine.stepFinished(token: 1, result: .success([:]), at: .seconds(1))
        _ = try machine.apply(.dismissed, at: .seconds(1))
        let relaunch = try machine.apply(.relaunch(launch: "L2"), at: .seconds(2))
        #expect(relaunch.filter { $0 == .resetLaunchInputs }.count == 1)
        let reset = try #require(relaunch.firstIndex(of: .resetLaunchInputs))
        let firstStart = try #require(relaunch.firstIndex { if case .start = $0 { true } else { false } })
        #expect(reset < firstStart)
        // A refused relaunch resets nothing.
        #expect(throws: LaunchMachine.Refusal.self) { try machine.apply(.relaunch(launch: "L3"), at: .seconds(3)) }
    }

    @Test func softAndHardErrorsAreDifferentCases() throws {
        var soft = try MachineHarness([step("a", timeout: 60_000)], settings: settings)
        soft.at(10_000)
        guard case .error(.timedOut(let info)) = soft.machine.stage else {
            Issue.record("a timeout is a soft error, not \(soft.machine.stage)")
            return
        }
        #expect(info.code == .timeout)
        #expect(soft.isRunning("a"), "work goes on in a soft error")

        var hard = try MachineHarness([step("a"), step("b")], settings: settings)
        hard.fail("a", code: .timeout, at: 100)
        guard case .error(.failed(let failed)) = hard.machine.stage else {
            Issue.record("a failed critical step is a hard error, not \(hard.machine.stage)")
            return
        }
        // A failure whose own code says "timeout" is still a hard error: the case decides.
        #expect(failed.code == .stepFailed)
        #expect(hard.status("b") == .pending, "nothing runs in a hard error")
        hard.at(20_000)
        #expect(hard.status("b") == .pending)
    }

    @Test func errorAndDestinationExistOnlyInTheirPhases() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        #expect(h.machine.error == nil && h.machine.destination == nil && h.machine.dismissingSince == nil)
        h.succeed("a", facts: ["authenticated": true, "route": "orders/42"], at: 1200)
        guard case .dismissing(let since, let destination) = h.machine.stage else {
            Issue.record("expected dismissing, not \(h.machine.stage)")
            return
        }
        #expect(since == .milliseconds(1200))
        #expect(destination == Destination(screen: .home, route: "orders/42"))
        #expect(h.machine.destination == destination, "renderers load the app beneath the exit animation")
        #expect(h.machine.publish(at: .milliseconds(1200)).destination == destination)
        h.at(1500)
        #expect(h.machine.stage == .finished(Destination(screen: .home, route: "orders/42")))
        #expect(h.machine.error == nil && h.machine.dismissingSince == nil)
    }

    @Test func theDestinationIsKnownWhileOnlySignalStepsWait() throws {
        var first = step("first-frame", after: ["auth"])
        first.plugin = BuiltinPlugin.signal.name
        var h = try MachineHarness([step("auth"), step("links", critical: false), first], settings: settings)
        #expect(h.machine.destination == nil)
        h.succeed("auth", facts: ["authenticated": false, "first_launch": true], at: 100)
        #expect(h.isRunning("first-frame"))
        #expect(h.machine.destination == nil, "an unfinished step other than a signal may still change it")
        h.fail("links", at: 200)
        let preview = Destination(screen: .onboarding)
        #expect(h.phase == .loading)
        #expect(h.machine.destination == preview, "only the signal is left: a renderer can load the app")
        #expect(h.machine.publish(at: .milliseconds(200)).destination == preview)
        h.succeed("first-frame", at: 1500)
        #expect(h.machine.stage == .dismissing(since: .milliseconds(1500), destination: preview))
    }

    @Test func aSignalWithADependantGivesNoPreview() throws {
        var gate = step("gate")
        gate.plugin = BuiltinPlugin.signal.name
        var h = try MachineHarness([gate, step("after-gate", after: ["gate"])], settings: settings)
        h.at(100)
        #expect(h.machine.destination == nil, "the step after the signal has not run yet")
    }
}
