import SplashProtocol
import SplashCore
@testable import SplashScene
import Testing
import TestSupport

/// The decisions that were the loop's and are the machine's: the first-frame cache looked up and
/// stored, the helper's frames let go, the memory given back, the modes set again, the logo that
/// comes late, and the reconnection's back-off. All on the test clock.
@Suite struct RendererDecisionTests {
    typealias Harness = RendererMachineTests.Harness
    static let a = RendererMachineTests.a, b = RendererMachineTests.b

    /// Boots to the first frames (by mode set) and plays the entry out; every action seen.
    static func bootCollecting(_ h: Harness, cache: RendererMachine.CachedFrames? = nil, noSplashd: Bool = true) -> [RendererMachine.Action] {
        // splashd's socket not there yet (as the settle at start was): the still view is given back.
        var seen = noSplashd ? h.feed(.noSplashd) : []
        seen += h.feed(.deviceOpened(master: true, closesFramebuffers: false))
        seen += h.feed(.outputs([a, b]))
        if let cache { seen += h.feed(.cachedFrames(cache)) }
        for id in draws(seen) { seen += h.feed(.presented(id, flipPending: false)) }
        var guardCount = 0
        while let at = h.machine.nextWake(after: h.now), guardCount < 10_000 {
            guardCount += 1
            h.clock.advance(to: max(at, h.now + .milliseconds(16)))
            let actions = h.feed(.tick)
            seen += actions
            for id in draws(actions) { seen += h.feed(.presented(id, flipPending: false)) }
        }
        return seen
    }

    @Test func aCacheMissPlaysTheEntryThenStoresTheStillViewAndGivesMemoryBackOnce() throws {
        let h = try Harness(cachesFirstFrames: true)
        #expect(h.feed(.noSplashd).isEmpty)
        #expect(h.feed(.deviceOpened(master: true, closesFramebuffers: false)) == [.readOutputs])
        #expect(h.feed(.outputs([Self.a, Self.b])) == [.loadCachedFrames])
        h.clock.advance(by: .milliseconds(30))
        #expect(draws(h.feed(.cachedFrames(.none))) == [31, 32])
        #expect(h.machine.times(at: h.now).sinceShown == 0, "a miss: the entry from the first frame")
        #expect(h.machine.nextWake(after: h.now) != nil, "the entry moves")
        var seen: [RendererMachine.Action] = []
        for id in [UInt32(31), 32] { seen += h.feed(.presented(id, flipPending: false)) }
        var guardCount = 0
        while let at = h.machine.nextWake(after: h.now), guardCount < 1000 {
            guardCount += 1
            #expect(!seen.contains(.giveBackMemory), "nothing is given back while the entry moves")
            h.clock.advance(to: max(at, h.now + .milliseconds(16)))
            let actions = h.feed(.tick)
            seen += actions
            for id in draws(actions) { seen += h.feed(.presented(id, flipPending: false)) }
        }
        #expect(Array(seen.suffix(2)) == [.storeFirstFrames([31, 32]), .giveBackMemory], "once it stands still")
        #expect(h.now >= .milliseconds(Int64(h.machine.timeline.entryLength)))
        // Standing still: nothing more to give back, whatever wakes it.
        #expect(h.feed(.tick).isEmpty)
        #expect(h.feed(.hotplug) == [.readOutputs])
        #expect(h.feed(.outputs([Self.a, Self.b])).isEmpty, "the same outputs: nothing drawn, nothing stored again")
    }

    /// A quick app: the splash still moved when the app took the display, so it never stood
    /// still. Its first frames are stored as it goes away, before its outputs are let go (the
    /// loop draws them afresh from those outputs), and only once.
    @Test func aSplashThatNeverStoodStillStoresItsFirstFramesAsItGoesAway() throws {
        let h = try Harness(cachesFirstFrames: true)
        let seen = Self.bootCollecting(h, cache: RendererMachine.CachedFrames.none, noSplashd: false)
        #expect(!seen.contains(where: Self.isStore), "splashd's first state is still to come")
        _ = h.feed(.connected)
        let handing = h.state("L1", .loading, destination: .init(screen: .home))
        #expect(handing.contains(.dropMaster))
        #expect(!handing.contains(where: Self.isStore))
        // The outputs looked at every 20 ms until the app shows on them: a check always due.
        var handingOff = h.feed(.outputsChecked(showingOurs: [31, 32]))
        handingOff += h.state("L1", .dismissing, destination: .init(screen: .home))
        handingOff += h.wake()
        #expect(handingOff == [.checkOutputs])
        #expect(h.feed(.outputsChecked(showingOurs: [])) == [
            .send(.dismissed), .storeFirstFrames([31, 32]), .releaseFramebuffers, .suspendInput, .log("the app has the display"),
        ])
        // The splash back, and away again: nothing is stored twice.
        var back = h.state("L2", .loading, reason: .appExited)
        back += h.feed(.master(gained: true))
        back += h.feed(.outputs([Self.a, Self.b]))
        for id in draws(back) { back += h.feed(.presented(id, flipPending: false)) }
        _ = h.state("L2", .loading, reason: .appExited, destination: .init(screen: .home))
        _ = h.state("L2", .dismissing, reason: .appExited, destination: .init(screen: .home))
        let again = h.feed(.outputsChecked(showingOurs: []))
        #expect(again.contains(.releaseFramebuffers))
        #expect(!(back + again).contains(where: Self.isStore))
    }

    /// The logo still to come at the hand-off: no still view is stored without it.
    @Test func noFirstFrameIsStoredWithoutTheLogo() throws {
        let h = try Harness(cachesFirstFrames: true, logoPending: true)
        _ = Self.bootCollecting(h, cache: RendererMachine.CachedFrames.none, noSplashd: false)
        _ = h.feed(.connected)
        #expect(h.state("L1", .loading, destination: .init(screen: .home)).contains(.dropMaster))
        _ = h.feed(.outputsChecked(showingOurs: [31, 32]))
        _ = h.state("L1", .dismissing, destination: .init(screen: .home))
        #expect(h.wake() == [.checkOutputs])
        #expect(h.feed(.outputsChecked(showingOurs: [])) == [
            .send(.dismissed), .releaseFramebuffers, .suspendInput, .log("the app has the display"),
        ])
    }

    static func isStore(_ action: RendererMachine.Action) -> Bool {
        if case .storeFirstFrames = action { true } else { false }
    }

    @Test func withoutACacheNothingIsLookedUpOrStored() throws {
        let seen = Self.bootCollecting(try Harness())
        #expect(!seen.contains(.loadCachedFrames))
        #expect(!seen.contains { if case .storeFirstFrames = $0 { true } else { false } })
        #expect(seen.filter { $0 == .giveBackMemory }.count == 1)
        #expect(!seen.contains(.releaseHelperFrames))
    }

    @Test func theHelpersFramesAreLetGoWhenTheSplashStandsStillOnOurs() throws {
        let h = try Harness(cachesFirstFrames: true, helperFrames: true)
        let seen = Self.bootCollecting(h, cache: .onScreen)
        #expect(Array(seen.suffix(3)) == [.storeFirstFrames([31, 32]), .releaseHelperFrames, .giveBackMemory])
        #expect(h.machine.times(at: h.now).sinceShown >= h.machine.timeline.entryLength, "the helper's pictures are the entry's end")
    }

    /// splashd-kms-first-frame's pictures show the logo: a frame drawn before its raster is in
    /// would take it away, so the first frames wait for it; nothing is given back before.
    @Test func overTheHelpersPicturesTheFirstFramesWaitForTheLogo() throws {
        let h = try Harness(cachesFirstFrames: true, helperFrames: true, logoPending: true)
        _ = h.feed(.noSplashd)
        _ = h.feed(.deviceOpened(master: true, closesFramebuffers: false))
        _ = h.feed(.outputs([Self.a, Self.b]))
        #expect(h.feed(.cachedFrames(.onScreen)).isEmpty, "held: the helper's pictures stay")
        #expect(h.machine.nextWake(after: h.now) == nil)
        h.clock.advance(by: .milliseconds(150))
        #expect(draws(h.state("L1", .loading)).isEmpty, "a state's frame waits for the logo too")
        h.clock.advance(by: .milliseconds(50))
        let came = h.feed(.logoReady)
        #expect(draws(came) == [31, 32])
        #expect(!came.contains(.giveBackMemory), "not before the frames are shown")
        var seen: [RendererMachine.Action] = []
        for id in draws(came) { seen += h.feed(.presented(id, flipPending: false)) }
        #expect(seen.contains(.giveBackMemory))
    }

    /// The name and tagline never wait for the logo: with no cache, frames are drawn while it is
    /// drawn by its child, and every output is drawn again once it came.
    @Test func theLogoComingLateRedrawsEveryOutputAndHoldsTheGiveBack() throws {
        let h = try Harness(logoPending: true)
        let seen = Self.bootCollecting(h)
        #expect(draws(seen).count > 10, "the entry played without waiting for the logo")
        #expect(!seen.contains(.giveBackMemory), "the logo is still to come")
        #expect(h.machine.nextWake(after: h.now) == nil)
        h.clock.advance(by: .seconds(1))
        let came = h.feed(.logoReady)
        #expect(draws(came) == [31, 32])
        #expect(!h.machine.logoPending)
        var after: [RendererMachine.Action] = []
        for id in draws(came) { after += h.feed(.presented(id, flipPending: true)) }
        #expect(!after.contains(.giveBackMemory), "two flips pending")
        after += h.feed(.flipped(31))
        after += h.feed(.flipped(32))
        #expect(after.last == .giveBackMemory)
        // Away, the logo's coming draws nothing.
        let away = try Harness(logoPending: true)
        away.boot()
        away.handOver()
        #expect(away.feed(.logoReady).isEmpty)
    }

    @Test func theModesAreSetAgainOnlyWhenMasterIsRegained() throws {
        let h = try Harness()
        h.boot()
        h.handOver()
        #expect(h.state("L2", .loading, reason: .appExited) == [
            .log("launch L2 (app-exited, loading): taking the display back"), .takeLock, .takeMaster,
        ])
        let gained = h.feed(.master(gained: true))
        #expect(Array(gained.prefix(1)) == [.modesLost])
        #expect(Array(gained.suffix(2)) == [.resumeInput, .readOutputs])
        let fresh = try Harness()
        #expect(!fresh.feed(.deviceOpened(master: true, closesFramebuffers: false)).contains(.modesLost), "a device just opened")
    }

    @Test func aLostConnectionIsRetriedAfter100msDoublingTo2sAnd100msAgainAfterOneThatBroughtStates() throws {
        let h = try Harness()
        h.boot()
        var pauses: [Duration] = []
        for _ in 0..<7 {
            let lost = h.feed(.connectionLost("connection refused"))
            guard case .warn(let line) = lost.first, let at = h.machine.nextWake(after: h.now) else {
                Issue.record("no warning or no wake: \(lost)")
                return
            }
            pauses.append(at - h.now)
            #expect(line == "lost splashd: connection refused; connecting again in \(at - h.now)")
            h.clock.advance(by: .milliseconds(99))
            if pauses.count == 1 { #expect(!h.feed(.tick).contains(.connect), "not before its time") }
            h.clock.advance(to: at)
            #expect(h.feed(.tick) == [.connect])
            #expect(h.machine.nextWake(after: h.now) == nil, "asked: nothing is timed until it answers")
        }
        #expect(pauses == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600), .seconds(2), .seconds(2)])
        // A connection with no state (splashd went again at once): the pause keeps growing.
        _ = h.feed(.connected)
        _ = h.feed(.connectionLost("end of stream"))
        #expect(h.machine.nextWake(after: h.now).map { $0 - h.now } == .seconds(2))
        h.clock.advance(by: .seconds(2))
        #expect(h.feed(.tick) == [.connect])
        // One that brought a state: quick again.
        _ = h.feed(.connected)
        _ = h.state("L1", .loading)
        _ = h.feed(.connectionLost("end of stream"))
        #expect(h.machine.nextWake(after: h.now).map { $0 - h.now } == .milliseconds(100))
    }

    /// With splashd's socket there at start, nothing is given back before its first state: that
    /// state's frame would fault it all in again.
    @Test func withSplashdThereTheStartsMemoryWaitsForItsFirstState() throws {
        let h = try Harness(cachesFirstFrames: true)
        let seen = Self.bootCollecting(h, cache: .loaded, noSplashd: false)
        #expect(!seen.contains(.giveBackMemory))
        #expect(h.feed(.tick).isEmpty)
        _ = h.feed(.connected)
        var first = h.state("L1", .loading)
        for id in draws(first) { first += h.feed(.presented(id, flipPending: false)) }
        #expect(Array(first.suffix(2)) == [.storeFirstFrames([31, 32]), .giveBackMemory])
    }

    /// A connection's first state is what the splash shows from there: its memory is given back
    /// once it stands still, and not before a state came.
    @Test func theMemoryIsGivenBackAfterEachConnectionsFirstStateStandsStill() throws {
        let h = try Harness()
        _ = Self.bootCollecting(h)
        _ = h.feed(.connected)
        #expect(h.feed(.tick).isEmpty, "connected, no state yet")
        var seen = h.state("L1", .loading)
        for id in draws(seen) { seen += h.feed(.presented(id, flipPending: false)) }
        #expect(seen.last == .giveBackMemory)
        var second = h.state("L1", .loading, error: RendererMachineTests.crashLoop)
        for id in draws(second) { second += h.feed(.presented(id, flipPending: false)) }
        #expect(!second.contains(.giveBackMemory), "only the connection's first state")
        _ = h.feed(.connectionLost("end of stream"))
        h.clock.advance(by: .milliseconds(100))
        #expect(h.feed(.tick) == [.connect])
        _ = h.feed(.connected)
        var again = h.state("L1", .loading)
        for id in draws(again) { again += h.feed(.presented(id, flipPending: false)) }
        #expect(again.last == .giveBackMemory, "the next connection's first state")
    }
}
