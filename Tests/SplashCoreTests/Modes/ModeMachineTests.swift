import SplashCore
import SplashProtocol
import Testing

/// The modes beside the launch: an update's life and end view, a shutdown for good, and the hold
/// they put on the launch.
@Suite struct ModeMachineTests {
    func events(_ actions: [ModeMachine.Action]) -> [ModeMachine.Event] {
        actions.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    @Test func anUpdateBeginsWithItsFirstWordAndHoldsTheLaunch() {
        var modes = ModeMachine(endView: .seconds(10))
        #expect(modes.mode == .launch)
        let actions = modes.update(.message("Copying"), from: .psplash, at: .seconds(1))
        #expect(modes.mode == .update)
        #expect(modes.update == UpdateStatus(source: .psplash, message: "Copying"))
        #expect(actions == [
            .event(.updateStarted(.psplash)), .event(.modeChanged(from: .launch, to: .update)), .holdLaunch(true), .publish,
        ])
        #expect(modes.update(.progress(0.5), from: .psplash, at: .seconds(2)) == [.publish])
        #expect(modes.update(.progress(0.5), from: .psplash, at: .seconds(3)) == [], "nothing changed")
        #expect(modes.update(.progress(.nan), from: .psplash, at: .seconds(3)) == [])
        _ = modes.update(.progress(7), from: .psplash, at: .seconds(3))
        #expect(modes.update?.progress == 1, "clamped")
        #expect(modes.nextDeadline == nil, "a running update has no end of its own")
    }

    /// RAUC's step: its percentage and message in one input, so no state pairs one step's
    /// percentage with another's message (99 % beside "Copying image to rootfs.1", which RAUC
    /// sent at 90 %, in 7 of 8 installs).
    @Test func aStepSetsProgressAndMessageTogether() {
        var modes = ModeMachine(endView: .seconds(10))
        _ = modes.update(.step(0.9, message: "Copying image to rootfs.1"), from: .rauc, at: .seconds(1))
        #expect(modes.update == UpdateStatus(source: .rauc, progress: 0.9, message: "Copying image to rootfs.1"))
        #expect(modes.update(.step(0.99, message: "Copying image to rootfs.1 done."), from: .rauc, at: .seconds(2)) == [.publish])
        #expect(modes.update == UpdateStatus(source: .rauc, progress: 0.99, message: "Copying image to rootfs.1 done."))
        #expect(modes.update(.step(.nan, message: "x"), from: .rauc, at: .seconds(3)) == [])
    }

    @Test func aSucceededUpdateShowsRestartingForTheEndViewThenLetsTheLaunchGoOn() {
        var modes = ModeMachine(endView: .seconds(10))
        _ = modes.update(.progress(0.3), from: .rauc, at: .seconds(1))
        let ended = modes.update(.ended(.succeeded, error: "ignored"), from: .rauc, at: .seconds(5))
        #expect(events(ended) == [.updateFinished(.rauc, result: .succeeded, error: nil, duration: .seconds(4))])
        #expect(modes.update == UpdateStatus(source: .rauc, progress: 1, result: .succeeded))
        #expect(modes.mode == .update)
        #expect(modes.nextDeadline == .seconds(15))
        #expect(modes.advance(to: .seconds(14)) == [])
        #expect(modes.advance(to: .seconds(15)) == [.event(.modeChanged(from: .update, to: .launch)), .holdLaunch(false), .publish])
        #expect(modes.mode == .launch && modes.update == nil && modes.nextDeadline == nil)
    }

    @Test func aFailedUpdateShowsItsError() {
        var modes = ModeMachine()
        _ = modes.update(.progress(0.3), from: .rauc, at: .zero)
        _ = modes.update(.ended(.failed, error: "signature verification failed"), from: .rauc, at: .seconds(2))
        #expect(modes.update?.result == .failed)
        #expect(modes.update?.error == "signature verification failed")
        #expect(modes.update?.progress == 0.3, "the bar stays where it stopped")
        // A second end changes nothing; a new word begins a new update.
        #expect(modes.update(.ended(.succeeded, error: nil), from: .rauc, at: .seconds(3)) == [])
        let again = modes.update(.progress(0.1), from: .rauc, at: .seconds(4))
        #expect(events(again) == [.updateStarted(.rauc)])
        #expect(modes.update == UpdateStatus(source: .rauc, progress: 0.1))
        #expect(modes.nextDeadline == nil)
    }

    @Test func quitEndsTheViewAtOnce() {
        var modes = ModeMachine()
        #expect(modes.update(.quit, from: .psplash, at: .zero) == [], "QUIT with no update is nothing")
        _ = modes.update(.progress(0.5), from: .psplash, at: .zero)
        let quit = modes.update(.quit, from: .psplash, at: .seconds(3))
        #expect(quit == [
            .event(.updateQuit(.psplash, duration: .seconds(3))), .event(.modeChanged(from: .update, to: .launch)), .holdLaunch(false),
            .publish,
        ])
    }

    @Test func aShutdownOutranksAnUpdateAndIsForGood() {
        var modes = ModeMachine(endView: .seconds(1))
        _ = modes.update(.progress(0.5), from: .psplash, at: .zero)
        let down = modes.shutDown(.reboot, at: .seconds(1))
        #expect(down == [.event(.shutdownStarted(.reboot)), .event(.modeChanged(from: .update, to: .shutdown)), .publish])
        #expect(modes.mode == .shutdown)
        _ = modes.update(.quit, from: .psplash, at: .seconds(2))
        #expect(modes.mode == .shutdown, "the update's end does not end a shutdown")
        #expect(modes.shutDown(.reboot, at: .seconds(3)) == [])
        // A second of the other kind is nothing new either: the first word stands.
        #expect(modes.shutDown(.poweroff, at: .seconds(3)) == [])
        #expect(modes.shutdown == .reboot)
        var fresh = ModeMachine()
        #expect(fresh.shutDown(.poweroff, at: .zero).contains(.holdLaunch(true)))
    }
}

/// The launch held by a mode: its work goes on, it does not dismiss, its timeout waits once the
/// work is done.
@Suite struct LaunchHoldTests {
    let settings = SplashSettings(minDisplay: .seconds(1), slowAfter: .milliseconds(800), timeout: .seconds(10), exitAnimation: .milliseconds(300), allowOffline: true)

    @Test func aHeldLaunchWaitsAtTheEndOfItsWorkAndDismissesWhenReleased() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        h.record(h.machine.hold(true, at: .milliseconds(100)))
        h.succeed("a", at: 500)
        h.at(1500)
        #expect(h.phase == .loading, "min_display passed, but an update has the display")
        #expect(h.machine.nextDeadline == nil || h.machine.nextDeadline! > h.now, "no deadline in the past: no busy timer")
        h.at(60_000)
        #expect(h.phase == .loading, "no timeout for a launch whose work is done")
        h.record(h.machine.hold(false, at: h.now))
        #expect(h.phase == .dismissing)
        #expect(h.machine.dismissingSince == .seconds(60))
    }

    @Test func aHeldLaunchStillTimesOutWhileItsWorkIsNotDone() throws {
        var h = try MachineHarness([step("a", timeout: 60_000)], settings: settings)
        h.record(h.machine.hold(true, at: .zero))
        h.at(10_000)
        #expect(h.phase == .error)
        #expect(h.machine.error?.code == .timeout)
        h.succeed("a", at: 11_000)
        #expect(h.phase == .error, "the soft error waits for the hold too")
        #expect(throws: LaunchMachine.Refusal.self) { try h.command(.continueOffline, at: 11_500) }
        h.record(h.machine.hold(false, at: .seconds(12)))
        #expect(h.phase == .dismissing)
    }

    @Test func holdingTwiceOrReleasingUnheldDoesNothing() throws {
        var h = try MachineHarness([step("a")], settings: settings)
        #expect(h.machine.hold(false, at: .zero).isEmpty)
        _ = h.machine.hold(true, at: .zero)
        #expect(h.machine.hold(true, at: .zero).isEmpty)
    }
}
