import SplashCore
import SplashProtocol
import SplashScene
import SplashTheme
import Testing
import TestSupport

/// The native renderer and the modes beside the launch: an update or a shutdown takes the display
/// back from the app and keeps it; the update's end gives it back.
@Suite struct RendererModeTests {
    typealias Harness = RendererMachineTests.Harness

    func state(_ h: Harness, _ launch: String, _ phase: Phase, mode: SplashMode, update: UpdateStatus? = nil,
               shutdown: ShutdownKind? = nil, destination: Destination? = nil) -> [RendererMachine.Action] {
        h.seq += 1
        var state = StateMessage(seq: h.seq, launch: launch, phase: phase, slow: false, progress: 1, message: nil, elapsedMs: 0,
                                 steps: [], error: nil, destination: destination)
        state.mode = mode
        state.update = update
        state.shutdown = shutdown
        return h.feed(.state(state))
    }

    @Test func anUpdateAfterTheHandOffTakesTheDisplayBackAndItsEndGivesItToTheAppAgain() throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        let update = UpdateStatus(source: .rauc, progress: 0.25, message: "Copying image to rootfs.0")
        let back = state(h, "L1", .finished, mode: .update, update: update, destination: .init(screen: .home))
        #expect(back == [.log("an update: taking the display back"), .takeLock, .takeMaster])
        #expect(h.feed(.master(gained: true)).contains(.readOutputs))
        #expect(draws(h.feed(.outputs([RendererMachineTests.a, RendererMachineTests.b]))) == [31, 32])
        let texts = Theme.ModeTexts()
        #expect(h.machine.view.mode == SplashView.ModeView(title: texts.updating, progress: 0.25, message: "Copying image to rootfs.0",
                                                           warning: texts.warning))
        h.settle()
        // Progress is drawn; the launch's finished state does not hand over while the update runs.
        var later = update
        later.progress = 0.5
        #expect(draws(state(h, "L1", .finished, mode: .update, update: later, destination: .init(screen: .home))) == [31, 32])
        #expect(h.machine.stage == .showing)
        // The update's view goes: the finished launch hands the display over again.
        #expect(state(h, "L1", .finished, mode: .launch, destination: .init(screen: .home)).contains(.dropMaster))
        #expect(h.machine.stage == .handingOff)
    }

    @Test func aShutdownDuringTheLaunchKeepsTheSplashAndShowsItsWords() throws {
        let h = try Harness()
        h.boot()
        // A destination decided: in mode launch that hands over; in a shutdown it does not.
        let actions = state(h, "L1", .loading, mode: .shutdown, shutdown: .reboot, destination: .init(screen: .home))
        #expect(!actions.contains(.dropMaster))
        #expect(draws(actions) == [31, 32])
        #expect(h.machine.view.mode?.title == "Restarting")
        #expect(h.machine.view.mode?.progress == nil && h.machine.view.mode?.warning == nil)
        h.settle()
        #expect(h.machine.stage == .showing)
    }

    @Test func aFailedUpdateShowsItsErrorWithNoButtons() throws {
        let h = try Harness()
        h.boot()
        _ = state(h, "L1", .loading, mode: .update,
                  update: UpdateStatus(source: .rauc, progress: 0.4, result: .failed, error: "signature verification failed"))
        let view = h.machine.view
        #expect(view.mode == SplashView.ModeView(title: "Update failed", message: "signature verification failed", failed: true))
        #expect(view.error == nil && h.machine.focusRing == nil)
    }
}
