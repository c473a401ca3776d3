import SplashProtocol
import SplashCore
public import SplashTheme

/// The native renderer's decisions (docs/renderer-kms.md): when to draw which output, when to give
/// the display to the app and when to take it back, what a press means. A value with no I/O and
/// no clock, like the daemon's `LaunchMachine`: `splashd-kms`'s loop feeds it what happened (a
/// state, the device, the outputs, a flip, a press, the master it asked for, time passing), each
/// with the instant it happened, carries out the `Action`s it returns, and sleeps until the next
/// event or `nextWake`.
///
/// Its life, in `Stage`s:
/// - `showing`: DRM master, the splash on every output, a frame per vertical blank while something
///   moves and none while nothing does.
/// - `handingOff`: a state said the app may take the display (its destination decided with only
///   `signal` steps left, or `dismissing`): the last frame stays, master and the display lock are
///   given up, and the outputs are looked at until the app shows on them (the kernel does not tell
///   another master's mode setting): then `dismissed`, and the framebuffers are let go.
/// - `away`: the app has the display. Nothing is held, drawn or timed; only a state or a hotplug
///   event wakes the renderer.
/// - `waitingForMaster`: a later launch (`relaunch`, `app-exited`, `app-hung`, the crash loop, a
///   visible `resume`), an update or a shutdown (design §15) wants the splash back while another process (a hung app, until splashd has
///   killed it) is still master: master is asked for every `masterRetry`, and only while a launch
///   wants the display. Once it comes, every output is drawn at once, from the launch's first
///   state, with the entry animation.
/// - `noDevice`: no device open (at start, or after it went away).
///
/// Each stage carries its own data (`State`): the flips pending and the outputs to draw are the
/// `showing` stage's, the next look at the outputs the `handingOff` stage's, the next ask for
/// master the `waitingForMaster` stage's. Beside the stage, only what spans stages: what the
/// splash shows (`view`, `launch`, `phase`, the focus, the entry's clock), the outputs, whose the
/// display is (`handedOff`), the device's `CLOSEFB`, splashd's connection, the logo's raster, and
/// the memory to give back once the splash stands still.
///
/// The loop's own decisions are the machine's too: the first-frame cache looked up at start
/// (`loadCachedFrames`) and stored once the splash stands still, or at the hand-off if it never did
/// (`storeFirstFrames`),
/// `splashd-kms-first-frame`'s framebuffers let go (`releaseHelperFrames`), the memory given back
/// (`giveBackMemory`), the modes set again after master was regained (`modesLost`), and the
/// reconnection's back-off (`connect`, 100 ms doubling to 2 s, 100 ms again after a connection that
/// brought states).
public struct RendererMachine {
    /// How often master is asked for while a launch wants the display and another process has it.
    public static let masterRetry: Duration = .milliseconds(50)
    /// How long a flip may stay pending before the output is drawn again anyway.
    public static let flipLimit: Duration = .seconds(2)
    /// How long after the hand-off the outputs are looked at every 20 ms; every 250 ms after.
    public static let quickChecks: Duration = .seconds(10)
    /// How long after `finished` the outputs are still looked at when no app has taken them: then
    /// the last frame stays and nothing is looked at any more.
    public static let appPatience: Duration = .seconds(10)
    /// The first pause before connecting to splashd again, and the longest (doubling between).
    public static let reconnectPauses: (first: Duration, longest: Duration) = (.milliseconds(100), .seconds(2))

    public let theme: Theme
    public let timeline: SplashTimeline
    /// The upright layout's button at a point: `SplashPainter.layout(_:width:height:)`'s
    /// `button(atX:y:)` (a function, so the machine draws and measures nothing itself).
    public let hitTest: (SplashView, _ width: Double, _ height: Double, _ x: Double, _ y: Double) -> SplashView.Button?
    /// Which output each input device's presses belong to.
    public var touch: TouchMapping
    /// `--cache-dir`: the start's first outputs look up the first-frame cache, and the still view
    /// is stored once it stands.
    public let cachesFirstFrames: Bool
    /// `splashd-kms-first-frame` handed its framebuffers over: let go once the splash stands still.
    let helperFrames: Bool

    /// The stage, with its data.
    public internal(set) var state: State = .noDevice
    /// The outputs drawn on (in `showing`), or last drawn on (looked at while `handingOff`).
    public internal(set) var outputs: [Output] = []
    /// What the splash shows now (kept through every stage: the state that takes the display
    /// back is shown from the first frame).
    public internal(set) var view = SplashView()
    /// The launch the display was handed over in (nil while the splash wants the display): whose
    /// the display is when the device comes back, in any stage.
    public internal(set) var handedOff: String?
    /// The button Enter presses (Retry unless Tab or an arrow moved on).
    public internal(set) var focus = 0
    /// A key moved the focus: the focused button shows its ring (the page's `:focus-visible`).
    public internal(set) var focusVisible = false

    /// The kernel has `CLOSEFB` (the device's, for as long as it is open).
    var closesFramebuffers = false
    /// The latest state's launch and phase (a hand-off decides with them after they came).
    var launch: String?
    var phase: Phase = .loading
    var finishedAt: Duration?
    /// The entry's clock and the indicator's (frames in `showing` are drawn at them).
    var shownAt: Duration = .zero
    var slowSince: Duration?
    /// The splash was shown before (master gained once): a return's entry runs from master
    /// gained, as it always did (its first frame needs nothing new: the text stack is up).
    var shownOnce = false
    /// The input devices are not read (since the app took the display).
    var inputSuspended = false
    /// The logo's raster is still being drawn (its child process): `logoReady` says it came.
    public internal(set) var logoPending: Bool
    /// splashd's connection: when to connect again, and whether states came on it.
    var link: Link = .notYet
    var reconnectPause = Self.reconnectPauses.first
    /// The splash was (re)drawn from its first frame (the start, the device back, the splash back)
    /// or its connection's first state came: once it stands still, the memory its start and its
    /// drawing used is given back.
    var giveBackPending = true
    /// Outputs whose still view is to be written to the cache (a miss) or checked against a fresh
    /// drawing (a hit: a font that changed outside the theme), once the splash stands still, or
    /// at the hand-off if it never did.
    var framesToStore: Set<OutputID> = []

    /// - Parameters:
    ///   - cachesFirstFrames: a first-frame cache is kept (`--cache-dir`).
    ///   - helperFrames: `splashd-kms-first-frame` handed its framebuffers over.
    ///   - logoPending: the logo's raster is drawn by a child process and not in yet.
    public init(theme: Theme, touch: TouchMapping = TouchMapping(), cachesFirstFrames: Bool = false, helperFrames: Bool = false,
                logoPending: Bool = false,
                hitTest: @escaping (SplashView, Double, Double, Double, Double) -> SplashView.Button?) {
        self.theme = theme
        self.timeline = SplashTimeline(reduceMotion: theme.motion == .reduce)
        self.touch = touch
        self.cachesFirstFrames = cachesFirstFrames
        self.helperFrames = helperFrames
        self.logoPending = logoPending
        self.hitTest = hitTest
    }

    /// The stage's kind.
    public var stage: Stage {
        switch state {
        case .noDevice: .noDevice
        case .showing: .showing
        case .handingOff: .handingOff
        case .away: .away
        case .waitingForMaster: .waitingForMaster
        }
    }

    /// The times a frame drawn at `now` shows.
    public func times(at now: Duration) -> SplashTimeline.Times {
        .init(sinceShown: Self.ms(now - shownAt), sinceSlow: slowSince.map { Self.ms(now - $0) })
    }

    /// The button with the focus ring, if one has it.
    public var focusRing: SplashView.Button? {
        guard focusVisible, let buttons = view.error?.buttons, !buttons.isEmpty else { return nil }
        return buttons[min(focus, buttons.count - 1)]
    }

    /// Whether a flip is pending on the output.
    public func flipPending(_ output: OutputID) -> Bool {
        if case .showing(let showing) = state { showing.pending[output] != nil } else { false }
    }

    /// When the loop must wake with `tick` if nothing else happens first; nil: only an event wakes
    /// it (nothing moves, nothing is awaited).
    public func nextWake(after now: Duration) -> Duration? {
        var wake = framesWake(after: now)
        if case .lost(let at?) = link { wake = min(wake ?? at, at) }
        return wake
    }

    /// The stage's next wake: a frame, a flip overdue, a look at the outputs, an ask for master.
    func framesWake(after now: Duration) -> Duration? {
        switch state {
        case .noDevice, .away:
            return nil
        case .waitingForMaster(let waiting):
            return waiting.nextTry
        case .handingOff(let handingOff):
            return handingOff.nextCheck
        case .showing(let showing):
            var wake: Duration?
            func soonest(_ at: Duration) { wake = min(wake ?? at, at) }
            for (_, asked) in showing.pending { soonest(asked + Self.flipLimit) }
            for (_, at) in showing.staleUntil { soonest(at) }
            if !showing.handOffWanted {
                let moving = timeline.isMoving(view, at: times(at: now))
                if outputs.contains(where: { isDue($0.id, in: showing, moving: moving) }) { soonest(now) }
            }
            return wake
        }
    }

    /// Whether the output is to be drawn now: no flip pending on it, not waiting after a failure,
    /// for the cache or for the logo, and its picture changed, moves, or moved in its last frame.
    func isDue(_ id: OutputID, in showing: Showing, moving: Bool) -> Bool {
        showing.pending[id] == nil && showing.staleUntil[id] == nil && !showing.awaitingCache
            && !(logoPending && showing.showsLogo.contains(id))
            && (showing.dirty.contains(id) || moving || showing.drawnMoving.contains(id))
    }

    /// Takes in what happened at `now` (a monotonic instant, from any origin); returns what to do.
    public mutating func handle(_ input: Input, at now: Duration) -> [Action] {
        var actions: [Action]
        switch input {
        case .deviceOpened(let master, let closeFB): actions = deviceOpened(master: master, closesFramebuffers: closeFB, at: now)
        case .deviceRemoved: actions = deviceRemoved()
        case .outputs(let connected): actions = outputsRead(connected, at: now)
        case .hotplug: actions = stage == .showing ? [.readOutputs] : []
        case .state(let state): actions = stateArrived(state, at: now)
        case .presented(let id, let flipPending): actions = presented(id, flipPending: flipPending, at: now)
        case .presentFailed(let id):
            actions = []
            updateShowing { $0.staleUntil[id] = now + .milliseconds(100) }
        case .flipped(let id):
            actions = []
            updateShowing { $0.pending[id] = nil }
        case .input(let event): actions = pressed(event, at: now)
        case .master(let gained): actions = masterAnswered(gained: gained, at: now)
        case .outputsChecked(let ours): actions = checked(ours, at: now)
        case .tick: actions = []
        case .cachedFrames(let answer): actions = cacheAnswered(answer, at: now)
        case .logoReady: actions = logoCame()
        case .noSplashd:
            actions = []
            if link == .notYet { link = .absent }
        case .connected: actions = connected()
        case .connectionLost(let reason): actions = connectionLost(reason, at: now)
        }
        actions += pump(at: now)
        actions += giveBack(after: actions, at: now)
        return actions
    }

    /// Changes the `showing` stage's data (nothing in another stage).
    mutating func updateShowing(_ change: (inout Showing) -> Void) {
        guard case .showing(var showing) = state else { return }
        change(&showing)
        state = .showing(showing)
    }

    // MARK: - The device and master

    private mutating func deviceOpened(master: Bool, closesFramebuffers closeFB: Bool, at now: Duration) -> [Action] {
        closesFramebuffers = closeFB
        giveBackPending = true
        if handedOff != nil {
            // The app's turn: a device that came (back) or a renderer started while the app runs
            // is not kept from it.
            state = .away
            return [.log("the device came while the app has the display: it is the app's")] + (master ? [.dropMaster] : [])
        }
        if master { return becomeMaster(at: now) }
        state = .waitingForMaster(.init(wantedSince: now, nextTry: now + Self.masterRetry))
        return [.log("another process is the device's master (the app has the display): waiting for it to let go")]
    }

    private mutating func deviceRemoved() -> [Action] {
        var actions: [Action] = []
        outputs = []
        switch state {
        case .handingOff(let handingOff) where phase == .dismissing && !handingOff.dismissedSent:
            // Nothing of ours is on screen any more.
            actions.append(.send(.dismissed))
        case .showing(let showing) where showing.handOffWanted:
            // The app takes the device that comes back: the display lock goes now, as at the
            // hand-off (nothing of the splash is on screen any more).
            handedOff = launch
            actions.append(.releaseLock)
            if phase == .dismissing { actions.append(.send(.dismissed)) }
        default:
            break
        }
        state = .noDevice
        actions.append(.waitForDevice)
        return actions
    }

    private mutating func masterAnswered(gained: Bool, at now: Duration) -> [Action] {
        guard case .waitingForMaster(var waiting) = state else {
            // Asked for, and no longer wanted (the launch handed over meanwhile).
            return gained ? [.dropMaster] : []
        }
        if gained { return [.modesLost] + becomeMaster(at: now) }
        var actions: [Action] = []
        if !waiting.toldWaiting {
            waiting.toldWaiting = true
            actions.append(.log("another process (the app) still has the display: asking for it every \(Self.masterRetry)"))
        }
        waiting.nextTry = now + Self.masterRetry
        state = .waitingForMaster(waiting)
        return actions
    }

    /// Master is this process's: every output drawn at once, the entry animation from now.
    private mutating func becomeMaster(at now: Duration) -> [Action] {
        var actions: [Action] = []
        if case .waitingForMaster(let waiting) = state {
            actions.append(.log("the display is ours \(Int(Self.ms(now - waiting.wantedSince).rounded())) ms after the launch wanted it"))
        }
        state = .showing(Showing(entryClockPending: !shownOnce))
        shownAt = now
        shownOnce = true
        giveBackPending = true
        if let since = slowSince { slowSince = max(since, now) }
        focusVisible = false
        outputs = []
        if inputSuspended {
            inputSuspended = false
            actions.append(.resumeInput)
        }
        actions.append(.readOutputs)
        return actions
    }

    private mutating func outputsRead(_ connected: [Output], at now: Duration) -> [Action] {
        guard case .showing(var showing) = state else { return [] }
        var actions: [Action] = []
        let before = Set(outputs.map(\.id))
        let first = before.isEmpty
        for output in outputs where !connected.contains(where: { $0.id == output.id }) {
            actions.append(.log("\(output.name) unplugged: let go"))
            showing.pending[output.id] = nil
            showing.staleUntil[output.id] = nil
        }
        outputs = connected
        for output in connected where !before.contains(output.id) {
            showing.dirty.insert(output.id)
            if !first { showing.pluggedAt[output.id] = now }
        }
        if showing.entryClockPending, !connected.isEmpty {
            showing.entryClockPending = false
            if cachesFirstFrames {
                // The start's first outputs: their first frames may be the cache's.
                showing.awaitingCache = true
                actions.append(.loadCachedFrames)
            } else {
                startEntry(skipped: false, at: now)
            }
        }
        state = .showing(showing)
        return actions
    }

    /// The entry's clock starts now, or at its end when the first frames are the still view.
    private mutating func startEntry(skipped: Bool, at now: Duration) {
        shownAt = skipped ? now - .milliseconds(Int64(timeline.entryLength)) : now
        if let since = slowSince { slowSince = max(since, now) }
    }

    private mutating func cacheAnswered(_ answer: CachedFrames, at now: Duration) -> [Action] {
        guard case .showing(var showing) = state, showing.awaitingCache else { return [] }
        showing.awaitingCache = false
        framesToStore = Set(outputs.map(\.id))
        startEntry(skipped: answer != .none, at: now)
        switch answer {
        case .none: break
        case .loaded: showing.cachedNext = framesToStore
        case .onScreen: if logoPending { showing.showsLogo = framesToStore }
        }
        state = .showing(showing)
        return []
    }

    private mutating func logoCame() -> [Action] {
        logoPending = false
        let all = Set(outputs.map(\.id))
        updateShowing {
            $0.showsLogo = []
            $0.dirty.formUnion(all)
        }
        return []
    }

    // MARK: - splashd's connection

    private mutating func connected() -> [Action] {
        link = .connected(states: 0)
        return []
    }

    /// splashd went away (a restart), or sent what this renderer cannot read: the last frame
    /// stays, and the renderer connects again, sooner after a connection that brought states.
    private mutating func connectionLost(_ reason: String, at now: Duration) -> [Action] {
        if case .connected(let states) = link, states > 0 { reconnectPause = Self.reconnectPauses.first }
        let pause = reconnectPause
        link = .lost(retryAt: now + pause)
        reconnectPause = min(pause * 2, Self.reconnectPauses.longest)
        return [.warn("lost splashd: \(reason); connecting again in \(pause)")]
    }

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
