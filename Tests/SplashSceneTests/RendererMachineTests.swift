import SplashCore
import SplashProtocol
@testable import SplashScene
import SplashTheme
import Testing
import TestSupport

/// The outputs a list of actions draws, in order.
func draws(_ actions: [RendererMachine.Action]) -> [UInt32] {
    actions.compactMap { if case .draw(let id) = $0 { id } else { nil } }
}

/// The native renderer's machine on a test clock: every hand-off, every return, the device lost
/// during a hand-off, a hotplug during a return, a launch starting while a flip is pending, and
/// what a press means on which output.
@Suite struct RendererMachineTests {
    /// Loaded once: a theme that cannot be loaded fails each test that uses it, with its reason
    /// (a `try!` would end the whole run).
    static let loading = Result { try ThemeLoader.load(directory: Binaries.packageRoot + "/renderer/themes/reference").theme }
    static var theme: Theme { get throws { try loading.get() } }

    static let a = RendererMachine.Output(id: 31, name: "Virtual-1", width: 1280, height: 800, widthMM: 300, heightMM: 190)
    static let b = RendererMachine.Output(id: 32, name: "Virtual-2", width: 1024, height: 768, widthMM: 220, heightMM: 165)

    /// The machine, the clock it is fed from, and the presses its hit test saw.
    final class Harness {
        let clock = TestClock()
        var machine: RendererMachine
        /// (width, height, x, y) of every hit test: the upright picture's size and point.
        var hits: [(Double, Double, Double, Double)] = []
        var seq: UInt64 = 0

        init(touch: TouchMapping = TouchMapping(), cachesFirstFrames: Bool = false, helperFrames: Bool = false, logoPending: Bool = false) throws {
            let box = HitBox()
            machine = RendererMachine(
                theme: try RendererMachineTests.theme, touch: touch, cachesFirstFrames: cachesFirstFrames, helperFrames: helperFrames,
                logoPending: logoPending
            ) { view, w, h, x, y in
                box.hits.append((w, h, x, y))
                // Retry: the middle fifth of the upright picture.
                return view.error != nil && abs(x - w / 2) < w / 10 && abs(y - h / 2) < h / 10 ? .retry : nil
            }
            self.box = box
        }
        private let box: HitBox
        var seen: [(Double, Double, Double, Double)] { box.hits }

        var now: Duration { clock.now.offset }

        @discardableResult
        func feed(_ input: RendererMachine.Input) -> [RendererMachine.Action] {
            machine.handle(input, at: now)
        }

        func state(_ launch: String, _ phase: Phase, reason: LaunchReason = .boot, destination: Destination? = nil,
                   error: ErrorInfo? = nil) -> [RendererMachine.Action] {
            seq += 1
            return feed(.state(StateMessage(seq: seq, launch: launch, phase: phase, reason: reason, slow: false, progress: 0,
                                            message: nil, elapsedMs: 0, steps: [], error: error, destination: destination)))
        }

        /// Advances the clock to the machine's next wake and ticks; the actions.
        func wake() -> [RendererMachine.Action] {
            guard let at = machine.nextWake(after: now) else { return [] }
            clock.advance(to: max(at, now))
            return feed(.tick)
        }

        /// Boots to the splash on both outputs, the entry animation over (nothing moves).
        func boot(master: Bool = true, closeFB: Bool = false) {
            #expect(feed(.deviceOpened(master: master, closesFramebuffers: closeFB)) == [.readOutputs])
            #expect(draws(feed(.outputs([RendererMachineTests.a, RendererMachineTests.b]))) == [31, 32])
            settle()
        }

        /// Presents every draw asked for (by mode set: nothing pending) until nothing moves.
        func settle() {
            var guardCount = 0
            while let at = machine.nextWake(after: now), guardCount < 10_000 {
                guardCount += 1
                clock.advance(to: max(at, now + .milliseconds(16)))
                for id in draws(feed(.tick)) { feed(.presented(id, flipPending: false)) }
            }
        }

        /// Goes through a hand-off to the app (it shows on both outputs) and `finished`.
        func handOver(launch: String = "L1") {
            #expect(state(launch, .loading, destination: .init(screen: .home)).contains(.dropMaster))
            #expect(machine.stage == .handingOff)
            _ = state(launch, .dismissing, destination: .init(screen: .home))
            let away = feed(.outputsChecked(showingOurs: []))
            #expect(away == [.send(.dismissed), .releaseFramebuffers, .suspendInput, .log("the app has the display")])
            #expect(machine.stage == .away)
            #expect(state(launch, .finished, destination: .init(screen: .home)).isEmpty)
        }
    }

    final class HitBox: @unchecked Sendable {
        var hits: [(Double, Double, Double, Double)] = []
    }

    static let crashLoop = ErrorInfo(code: .appCrashLoop, message: "The app keeps stopping", step: nil, actions: [.retry])

    @Test func theFirstFrameAtOnceThenAFramePerFlipWhileTheEntryMovesThenNoWakeUps() throws {
        let h = try Harness()
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
        #expect(draws(h.feed(.outputs([Self.a, Self.b]))) == [31, 32])
        h.feed(.presented(31, flipPending: true))
        h.feed(.presented(32, flipPending: true))
        #expect(h.machine.times(at: h.now).sinceShown == 0, "the entry animation starts with the first frame")
        // Moving, but both flips pending: nothing is drawn until a flip is done.
        #expect(draws(h.feed(.tick)).isEmpty)
        h.clock.advance(by: .milliseconds(16))
        #expect(draws(h.feed(.flipped(31))) == [31], "the next frame on the output whose flip is done, on its own pace")
        h.settle()
        #expect(h.machine.nextWake(after: h.now) == nil, "nothing moves: no wake-up")
        #expect(draws(h.feed(.tick)).isEmpty)
    }

    @Test func theEntryStartsWithTheFirstFrameHoweverLongTheOutputsTookToRead() throws {
        let h = try Harness()
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
        // Reading the connectors and making the buffers took 400 ms (a slow device).
        h.clock.advance(by: .milliseconds(400))
        #expect(draws(h.feed(.outputs([Self.a, Self.b]))) == [31, 32])
        #expect(h.machine.times(at: h.now).sinceShown == 0, "both first frames are the entry's first: the background alone")
        h.feed(.presented(31, flipPending: false))
        h.feed(.presented(32, flipPending: false))
        // A later read (a hotplug) does not start the entry again.
        h.clock.advance(by: .milliseconds(300))
        _ = h.feed(.outputs([Self.a]))
        #expect(h.machine.times(at: h.now).sinceShown == 300)
        // A return (master gained again) runs its entry from master gained, as before.
        let back = try Harness()
        back.boot()
        back.handOver()
        _ = back.state("L2", .loading, reason: .appExited)
        let gained = back.now
        _ = back.feed(.master(gained: true))
        back.clock.advance(by: .milliseconds(400))
        _ = back.feed(.outputs([Self.a, Self.b]))
        #expect(back.machine.times(at: back.now).sinceShown == 400 && back.now - gained == .milliseconds(400))
    }

    @Test func firstFramesFromTheCacheSkipTheEntryAndNothingMovesAfterThem() throws {
        let h = try Harness(cachesFirstFrames: true)
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
        #expect(h.feed(.outputs([Self.a, Self.b])) == [.loadCachedFrames], "nothing drawn before the cache answers")
        #expect(h.machine.nextWake(after: h.now) == nil)
        #expect(draws(h.feed(.cachedFrames(.loaded))) == [31, 32])
        #expect(h.machine.times(at: h.now).sinceShown == h.machine.timeline.entryLength, "the still view, at the entry's end")
        h.feed(.presented(31, flipPending: false))
        h.feed(.presented(32, flipPending: false))
        h.clock.advance(by: .milliseconds(16))
        _ = h.feed(.tick)
        #expect(h.machine.nextWake(after: h.now) == nil, "no entry animation: nothing moves")
        // Only the start's first frames: after a hand-off and a return, the entry plays again.
        let later = try Harness()
        later.boot()
        later.feed(.cachedFrames(.loaded))
        later.clock.advance(by: .seconds(5))
        _ = later.feed(.hotplug)
        _ = later.feed(.outputs([Self.a, Self.b]))
        #expect(later.machine.times(at: later.now).sinceShown > 5000, "a read with no master gained does not move the clock")
    }

    @Test func theHandOffWaitsForTheFlipsThenGivesMasterAndTheLockUpAndLooksUntilTheAppShows() throws {
        let h = try Harness()
        h.boot()
        h.feed(.presented(31, flipPending: true))
        let early = h.state("L1", .loading, destination: .init(screen: .home))
        #expect(!early.contains(.dropMaster), "a flip is pending: the last frame is not on screen yet")
        #expect(h.feed(.flipped(31)) == [.dropMaster, .releaseLock, .log("handing the display to the app (no CLOSEFB: waiting for every output)"),
                                         .checkOutputs])
        // The app shows on one output of two: without CLOSEFB the renderer waits for both.
        #expect(h.feed(.outputsChecked(showingOurs: [31, 32])).isEmpty)
        #expect(h.machine.nextWake(after: h.now) == h.now + .milliseconds(20))
        _ = h.state("L1", .dismissing, destination: .init(screen: .home))
        #expect(h.wake() == [.checkOutputs])
        #expect(h.feed(.outputsChecked(showingOurs: [32])).isEmpty)
        #expect(h.wake() == [.checkOutputs])
        #expect(h.feed(.outputsChecked(showingOurs: [])) == [.send(.dismissed), .releaseFramebuffers, .suspendInput, .log("the app has the display")])
        #expect(h.machine.stage == .away)
        #expect(h.machine.nextWake(after: h.now) == nil, "away: no timer at all")
        _ = h.state("L1", .finished, destination: .init(screen: .home))
        #expect(h.machine.nextWake(after: h.now) == nil)
    }

    @Test func withCloseFBTheAppOnOneOutputIsEnoughAndLaterChecksAreSlower() throws {
        let h = try Harness()
        h.boot(closeFB: true)
        _ = h.state("L1", .dismissing, destination: .init(screen: .home))
        for _ in 0..<3 {
            #expect(h.wake() == [.checkOutputs] || h.machine.stage == .handingOff)
            h.feed(.outputsChecked(showingOurs: [31, 32]))
        }
        h.clock.advance(by: .seconds(11))
        #expect(h.feed(.tick) == [.checkOutputs])
        h.feed(.outputsChecked(showingOurs: [31, 32]))
        #expect(h.machine.nextWake(after: h.now) == h.now + .milliseconds(250), "past 10 s the outputs are looked at every 250 ms")
        #expect(h.wake() == [.checkOutputs])
        let away = h.feed(.outputsChecked(showingOurs: [32]))
        #expect(away == [.send(.dismissed), .log("the splash stays on Virtual-2 (CLOSEFB)"), .releaseFramebuffers, .suspendInput,
                         .log("the app has the display")])
    }

    @Test func aLaunchWithNoAppKeepsTheLastFrameAndStopsLookingAfterAWhile() throws {
        let h = try Harness()
        h.boot()
        #expect(h.state("L1", .finished, destination: .init(screen: .home)).last == .checkOutputs)
        var checks = 1
        h.feed(.outputsChecked(showingOurs: [31, 32]))
        while h.machine.stage == .handingOff {
            #expect(h.wake() == [.checkOutputs])
            h.feed(.outputsChecked(showingOurs: [31, 32]))
            checks += 1
        }
        #expect(h.machine.stage == .away && h.machine.nextWake(after: h.now) == nil)
        #expect(checks == 501, "at once, then every 20 ms for the 10 s the app is given: \(checks)")
    }

    @Test(arguments: [LaunchReason.appExited, .relaunch, .resume])
    func aLaterLaunchTakesTheDisplayBackAtOnceWhenTheAppsMasterIsGone(reason: LaunchReason) throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        h.clock.advance(by: .seconds(60))
        let back = h.state("L2", .loading, reason: reason)
        #expect(back == [.log("launch L2 (\(reason.rawValue), loading): taking the display back"), .takeLock, .takeMaster])
        #expect(h.feed(.master(gained: true)) == [.modesLost, .log("the display is ours 0 ms after the launch wanted it"), .resumeInput, .readOutputs])
        #expect(draws(h.feed(.outputs([Self.a, Self.b]))) == [31, 32], "within one frame of master: every output")
        #expect(h.machine.times(at: h.now).sinceShown == 0, "the entry animation again")
        #expect(h.machine.view == SplashView(), "the launch's first state")
        h.settle()
        // And the same hand-off ends it.
        h.handOver(launch: "L2")
    }

    @Test func aHungAppsMasterIsAskedForAtABoundedIntervalOnlyWhileTheLaunchWantsTheDisplay() throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        _ = h.state("L2", .loading, reason: .appHung)
        #expect(h.feed(.master(gained: false)) == [.log("another process (the app) still has the display: asking for it every 0.05 seconds")],
                "no draw, no error: the app still has it")
        var tries = 0
        let start = h.now
        while h.now - start < .seconds(1) {
            let actions = h.wake()
            #expect(actions == [.takeMaster])
            #expect(draws(h.feed(.master(gained: false))).isEmpty)
            tries += 1
        }
        #expect(tries == 20, "every 50 ms: \(tries) tries in a second")
        // splashd killed the app: the next try gets it, and every output is drawn at once.
        #expect(h.wake() == [.takeMaster])
        #expect(h.feed(.master(gained: true)).contains(.readOutputs))
        #expect(draws(h.feed(.outputs([Self.a, Self.b]))) == [31, 32])
    }

    @Test func aLaunchThatHandsOverBeforeTheDisplayIsFreeIsDismissedAtOnceAndNothingIsTried() throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        _ = h.state("L2", .loading, reason: .relaunch)
        h.feed(.master(gained: false))
        let over = h.state("L2", .dismissing, destination: .init(screen: .home))
        #expect(over.contains(.releaseLock) && over.contains(.send(.dismissed)))
        #expect(h.machine.stage == .away && h.machine.nextWake(after: h.now) == nil)
        // A master that came meanwhile is given straight back.
        #expect(h.feed(.master(gained: true)) == [.dropMaster])
    }

    @Test func theDeviceLostDuringAHandOffIsDismissedAndTheOneThatComesBackIsTheApps() throws {
        let h = try Harness()
        h.boot()
        _ = h.state("L1", .dismissing, destination: .init(screen: .home))
        #expect(h.machine.stage == .handingOff)
        #expect(h.feed(.deviceRemoved) == [.send(.dismissed), .waitForDevice])
        #expect(h.machine.stage == .noDevice)
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false))
            == [.log("the device came while the app has the display: it is the app's"), .dropMaster])
        #expect(h.machine.stage == .away)
        // The next launch takes the new device's display.
        #expect(h.state("L2", .loading, reason: .appExited).contains(.takeMaster))
    }

    @Test func theDeviceLostWhileShowingIsDrawnOnAgainWhenItComesBack() throws {
        let h = try Harness()
        h.boot()
        #expect(h.feed(.deviceRemoved) == [.waitForDevice])
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
        #expect(draws(h.feed(.outputs([Self.a]))) == [31])
    }

    /// The GPU's driver loaded late (a busy boot): the renderer still waits for the device when
    /// the boot's launch hands over. Nothing of the splash is on screen: the display lock goes at
    /// once (the app's `splashd-kms wait` returns), the launch is dismissed at once, and the
    /// device that comes is the app's. (It was kept: the app waited for the lock for ever, and the
    /// device came to a renderer that drew nothing.)
    @Test func aLaunchThatHandsOverBeforeTheDeviceCameLetsTheLockGoAndLeavesTheDeviceToTheApp() throws {
        let h = try Harness()
        h.feed(.connected)
        #expect(!h.state("L1", .loading).contains(.releaseLock))
        let over = h.state("L1", .loading, destination: .init(screen: .home))
        #expect(over.contains(.releaseLock))
        #expect(h.machine.stage == .noDevice)
        #expect(h.state("L1", .dismissing, destination: .init(screen: .home)).contains(.send(.dismissed)))
        let opened = h.feed(.deviceOpened(master: true, closesFramebuffers: false))
        #expect(opened.contains(.dropMaster) && draws(opened).isEmpty && !opened.contains(.readOutputs))
        #expect(h.machine.stage == .away)
        #expect(!h.state("L1", .finished, destination: .init(screen: .home)).contains(.takeLock))
        // The next launch takes the lock and the display back.
        let back = h.state("L2", .loading, reason: .appExited)
        #expect(back.contains(.takeLock) && back.contains(.takeMaster))
    }

    /// The same, with the device opened after the state that hands over came but before its
    /// dismissal: the dismissal is sent once it begins.
    @Test func aLaunchHandedOverWithNoDeviceIsDismissedWhenItsDismissalBegins() throws {
        let h = try Harness()
        #expect(h.state("L1", .loading, destination: .init(screen: .home)).contains(.releaseLock))
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)).contains(.dropMaster))
        #expect(h.state("L1", .dismissing, destination: .init(screen: .home)) == [.send(.dismissed)])
        #expect(h.state("L1", .dismissing, destination: .init(screen: .home)).isEmpty, "once")
    }

    /// With no device, a launch that wants the splash back after one handed over takes the lock
    /// again: an app restarted meanwhile waits for the splash's hand-off.
    @Test func aLaunchThatWantsTheSplashBackWithNoDeviceTakesTheLockAgain() throws {
        let h = try Harness()
        #expect(h.state("L1", .loading, destination: .init(screen: .home)).contains(.releaseLock))
        #expect(h.state("L2", .loading, reason: .appExited).contains(.takeLock))
        #expect(!h.state("L2", .loading, reason: .appExited).contains(.takeLock), "once")
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
    }

    /// The device lost while a hand-off waits for a flip: the app takes the device that comes
    /// back, so the lock goes now (it was kept, and the app waited for ever).
    @Test func theDeviceLostWhileAHandOffWaitsForAFlipLetsTheLockGo() throws {
        let h = try Harness()
        h.boot()
        _ = h.state("L1", .loading, error: nil)
        #expect(draws(h.state("L1", .error, error: Self.crashLoop)) == [31, 32])
        h.feed(.presented(31, flipPending: true))
        _ = h.state("L1", .loading, destination: .init(screen: .home))
        #expect(h.machine.stage == .showing, "the hand-off waits for the flip")
        let removed = h.feed(.deviceRemoved)
        #expect(removed.contains(.releaseLock) && removed.contains(.waitForDevice))
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)).contains(.dropMaster))
        #expect(h.machine.stage == .away)
    }

    @Test func anOutputPluggedInDuringAReturnIsDrawnOnWithTheOthers() throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        _ = h.state("L2", .loading, reason: .appExited)
        h.feed(.master(gained: false))
        #expect(h.feed(.hotplug).isEmpty, "not master: the outputs are read when it is")
        let c = RendererMachine.Output(id: 33, name: "HDMI-A-1", width: 1920, height: 1080)
        #expect(h.wake() == [.takeMaster])
        #expect(h.feed(.master(gained: true)).contains(.readOutputs))
        #expect(draws(h.feed(.outputs([Self.a, c]))) == [31, 33])
        // While showing, a hotplug reads the outputs and draws only the new one.
        h.settle()
        #expect(h.feed(.hotplug) == [.readOutputs])
        h.clock.advance(by: .milliseconds(5))
        let plugged = h.feed(.outputs([Self.a, c, Self.b]))
        #expect(draws(plugged) == [32])
        h.clock.advance(by: .milliseconds(7))
        #expect(h.feed(.presented(32, flipPending: false)) == [.log("Virtual-2 (1024x768) plugged in: the splash on it 7 ms after udev's event")])
        #expect(h.feed(.outputs([Self.a, Self.b])) == [.log("HDMI-A-1 unplugged: let go")])
    }

    @Test func aLaunchStartingWhileTheHandOffsFlipIsPendingKeepsTheDisplay() throws {
        let h = try Harness()
        h.boot()
        h.feed(.presented(32, flipPending: true))
        _ = h.state("L1", .loading, destination: .init(screen: .home))
        // The launch is replaced (a relaunch) before the flip is done.
        _ = h.state("L2", .loading, reason: .relaunch)
        let after = h.feed(.flipped(32))
        #expect(!after.contains(.dropMaster) && h.machine.stage == .showing)
    }

    @Test func theCrashLoopErrorShowsRetryWhichWorksByTouchOnItsOwnOutputAndByEnter() throws {
        let h = try Harness(touch: TouchMapping(overrides: ["QEMU Virtio Tablet": "Virtual-2"]))
        h.boot()
        h.handOver()
        let back = h.state("L2", .error, reason: .appExited, error: Self.crashLoop)
        #expect(back.contains(.takeMaster))
        h.feed(.master(gained: true))
        #expect(draws(h.feed(.outputs([Self.a, Self.b]))) == [31, 32])
        #expect(h.machine.view.error?.title == "The app keeps stopping" && h.machine.view.error?.buttons == [.retry])
        h.settle()
        // The tablet is bound to Virtual-2: its middle is Virtual-2's middle, Retry.
        let tablet = InputDeviceInfo(node: "/dev/input/event4", name: "QEMU Virtio Tablet")
        #expect(h.feed(.input(.press(x: 0.5, y: 0.5, device: tablet))) == [.log("Retry, pressed on Virtual-2"), .send(.retry)])
        #expect(h.seen.last! == (1024, 768, 512, 384), "hit-tested in Virtual-2's own size")
        // A press elsewhere presses nothing; Enter presses Retry.
        #expect(h.feed(.input(.press(x: 0.1, y: 0.1, device: tablet))).isEmpty)
        #expect(h.feed(.input(.activate)) == [.log("Retry"), .send(.retry)])
        // Tab shows the focus ring (a redraw).
        #expect(draws(h.feed(.input(.focusNext))) == [31, 32] && h.machine.focusRing == .retry)
    }

    @Test func pressesAreTurnedWithTheirOutputsRotation() throws {
        let h = try Harness()
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
        var turned = Self.a
        turned.rotation = .quarter
        h.feed(.outputs([turned]))
        h.settle()
        _ = h.state("L1", .error, error: Self.crashLoop)
        h.settle()
        let touch = InputDeviceInfo(node: "/dev/input/event2", isTouchscreen: true)
        // (1280 - 100, 300) on the buffer turned a quarter clockwise is (300, 100) upright, in 800x1280.
        _ = h.feed(.input(.press(x: 1180.0 / 1280, y: 300.0 / 800, device: touch)))
        let (w, h2, x, y) = h.seen.last!
        #expect(w == 800 && h2 == 1280)
        #expect(abs(x - 300) < 1e-9 && abs(y - 100) < 1e-9)
        #expect(SplashRotation.quarter.buffer(x: x, y: y, width: 1280, height: 800) == (1180, 300))
    }

    @Test func aRendererStartedWhileTheAppHasTheDisplayWaitsQuietly() throws {
        let h = try Harness()
        let start = h.feed(.deviceOpened(master: false, closesFramebuffers: false))
        #expect(start == [.log("another process is the device's master (the app has the display): waiting for it to let go")])
        #expect(h.machine.stage == .waitingForMaster)
        let finished = h.state("L1", .finished, destination: .init(screen: .home))
        #expect(finished.contains(.releaseLock))
        #expect(h.machine.stage == .away && h.machine.nextWake(after: h.now) == nil)
    }

    @Test func theSameLaunchsErrorAfterTheHandOffLeavesTheDisplayToTheApp() throws {
        // (As the page: only a later launch brings the splash back.)
        let h = try Harness()
        h.boot()
        h.handOver()
        #expect(h.state("L1", .error, error: Self.crashLoop).isEmpty)
        #expect(h.machine.stage == .away)
    }

    @Test func aLaunchThatBeganAndHandedOverWhileAwayIsDismissedAtOnce() throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        #expect(h.state("L2", .dismissing, reason: .resume, destination: .init(screen: .login)) == [.send(.dismissed)])
        #expect(h.machine.stage == .away)
    }
}

@Suite struct TouchMappingTests {
    static let outputs = [RendererMachineTests.a, RendererMachineTests.b]

    @Test func theOperatorsWordThenUdevsThenThePhysicalSizeThenTheFirstOutput() throws {
        let mapping = TouchMapping.parse(["/dev/input/event9=Virtual-2", "Panel=With=Equals=Virtual-1"])!
        #expect(mapping.overrides == ["/dev/input/event9": "Virtual-2", "Panel=With=Equals": "Virtual-1"])
        #expect(mapping.output(for: .init(node: "/dev/input/event9", outputName: "Virtual-1"), among: Self.outputs)?.name == "Virtual-2")
        #expect(mapping.output(for: .init(node: "/dev/input/event3", outputName: "Virtual-2"), among: Self.outputs)?.name == "Virtual-2")
        let sized = InputDeviceInfo(node: "/dev/input/event5", isTouchscreen: true, widthMM: 221, heightMM: 164)
        #expect(mapping.output(for: sized, among: Self.outputs)?.name == "Virtual-2")
        let rotated = InputDeviceInfo(node: "/dev/input/event5", isTouchscreen: true, widthMM: 190, heightMM: 300)
        #expect(mapping.output(for: rotated, among: Self.outputs)?.name == "Virtual-1", "either way round")
        #expect(mapping.output(for: .init(node: "/dev/input/event6", outputName: "HDMI-A-3"), among: Self.outputs)?.name == "Virtual-1")
        #expect(mapping.output(for: .init(node: "/dev/input/event6"), among: []) == nil)
        #expect(TouchMapping.parse(["no-output="]) == nil && TouchMapping.parse(["=Virtual-1"]) == nil && TouchMapping.parse(["plain"]) == nil)
    }
}

@Suite struct RotationTests {
    @Test(arguments: SplashRotation.allCases)
    func theTurnAndItsInverseAreOneType(rotation: SplashRotation) throws {
        for (x, y) in [(0.0, 0.0), (100, 300), (799, 1279), (640, 400)] {
            let upright = rotation.upright(width: 1280, height: 800)
            guard x < upright.width, y < upright.height else { continue }
            let onBuffer = rotation.buffer(x: x, y: y, width: 1280, height: 800)
            let back = rotation.upright(x: onBuffer.x, y: onBuffer.y, width: 1280, height: 800)
            #expect(abs(back.x - x) < 1e-9 && abs(back.y - y) < 1e-9)
        }
    }
}

/// The first frame replaces the picture without a mode set when the output already scans out the
/// chosen mode (design §16).
@Suite struct FirstFrameTests {
    static let mode = FirstFrame.Timing(clock: 83_500, hdisplay: 1280, hsyncStart: 1352, hsyncEnd: 1480, htotal: 1680,
                                        vdisplay: 800, vsyncStart: 803, vsyncEnd: 809, vtotal: 831, flags: 0x6)

    @Test func thePictureAloneIsReplacedWhenTheModeIsAlreadyTheChosenOne() throws {
        let on = FirstFrame.Scanout(mode: Self.mode, framebuffer: 42, drivesConnector: true)
        #expect(FirstFrame.decide(now: on, chosen: Self.mode) == .replacePicture)
    }

    @Test func anythingElseSetsTheModeAndSaysWhy() throws {
        var other = Self.mode
        other.clock = 71_000
        #expect(FirstFrame.decide(now: .init(mode: nil, framebuffer: 0, drivesConnector: false), chosen: Self.mode)
                == .setMode(reason: "the output is off"))
        #expect(FirstFrame.decide(now: .init(mode: Self.mode, framebuffer: 0, drivesConnector: true), chosen: Self.mode)
                == .setMode(reason: "the output is off"), "a mode with no framebuffer shows nothing to replace")
        #expect(FirstFrame.decide(now: .init(mode: Self.mode, framebuffer: 42, drivesConnector: false), chosen: Self.mode)
                == .setMode(reason: "its CRTC drives another output"))
        #expect(FirstFrame.decide(now: .init(mode: other, framebuffer: 42, drivesConnector: true), chosen: Self.mode)
                == .setMode(reason: "it scans out 1280x800@50.9, not 1280x800@59.8"), "same size, another refresh: another signal")
        var smaller = Self.mode
        smaller.hdisplay = 1024
        smaller.vdisplay = 768
        #expect(FirstFrame.decide(now: .init(mode: smaller, framebuffer: 42, drivesConnector: true), chosen: Self.mode)
                == .setMode(reason: "it scans out 1024x768@59.8, not 1280x800@59.8"))
    }
}
