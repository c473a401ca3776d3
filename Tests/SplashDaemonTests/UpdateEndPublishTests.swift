import SplashCore
import SplashDaemon
import Testing
import TestSupport

/// An update's end reaches every subscriber (issue 48, system check 22: a subscriber saw the first
/// install's early steps, then the second install's, never "succeeded"). The end was coalesced as
/// a progress is: when the loop had fallen behind RAUC (a busy machine, a slow journal), the next
/// install's first step was applied in the same frame and replaced it before any state carried it.
@Suite(.timeLimit(.minutes(10))) struct UpdateEndPublishTests {
    let settings = SplashSettings(
        minDisplay: .seconds(1), slowAfter: .milliseconds(500), timeout: .seconds(10),
        exitAnimation: .milliseconds(300), allowOffline: true
    )

    @Test func anUpdatesEndIsPublishedEvenWhenTheNextUpdateBeginsInTheSameFrame() async throws {
        let h = try ControllerHarness([StepSpec(id: "frame", plugin: "signal")], settings: settings, publishInterval: .milliseconds(16))
        h.controller.updater(.step(0.99, message: "Copying image to rootfs.1 done."), from: .rauc)
        // The launch's first state went out at 0: this one is held for a frame.
        await h.controller.heartbeat()
        h.clock.advance(by: .milliseconds(16))
        #expect(await h.next { $0.update?.progress == 0.99 } != nil)
        // Within the frame (the test clock stands still): the end, then the next install's start.
        h.controller.updater(.ended(.succeeded, error: nil), from: .rauc)
        h.controller.updater(.step(0, message: "Installing"), from: .rauc)
        await h.controller.heartbeat()
        h.clock.advance(by: .milliseconds(16))
        let next = await h.next { $0.update?.result == .succeeded || $0.update?.message == "Installing" }
        #expect(next?.update?.result == .succeeded, "the end was coalesced away: \(String(describing: next?.update))")
        if next?.update?.result == .succeeded {
            #expect(await h.next { $0.update?.message == "Installing" } != nil, "then the next install")
        }
        await h.stop()
    }
}
