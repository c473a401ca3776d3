public import SplashCore
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
public struct RendererMachine {
    /// A connector's id: the output's identity on its device.
    public typealias OutputID = UInt32

    /// One output the renderer draws on.
    public struct Output: Sendable, Equatable, CustomStringConvertible {
        public var id: OutputID
        /// `Virtual-1`, `HDMI-A-1`: what the log, `--output` and `--touch` call it.
        public var name: String
        /// The buffer's size in pixels (the mode's, not turned).
        public var width: Int
        public var height: Int
        /// How far the picture is turned on it.
        public var rotation: SplashRotation
        /// The panel's physical size in millimetres, 0 when the connector does not say.
        public var widthMM: Int
        public var heightMM: Int

        public init(id: OutputID, name: String, width: Int, height: Int, rotation: SplashRotation = .none,
                    widthMM: Int = 0, heightMM: Int = 0) {
            self.id = id
            self.name = name
            self.width = width
            self.height = height
            self.rotation = rotation
            self.widthMM = widthMM
            self.heightMM = heightMM
        }

        /// `Virtual-1 (1280x800, turned 90°)`, as the log says it.
        public var description: String {
            "\(name) (\(width)x\(height)\(rotation == .none ? "" : ", turned \(rotation.rawValue)°"))"
        }
    }

    public enum Stage: Sendable, Equatable {
        case noDevice, showing, handingOff, away, waitingForMaster
    }

    /// What happened.
    public enum Input: Sendable {
        /// The device was opened (at start, or after it came back): whether this process became its
        /// master (no one else was), and whether the kernel has `CLOSEFB`.
        case deviceOpened(master: Bool, closesFramebuffers: Bool)
        /// The device went away (its driver unbound).
        case deviceRemoved
        /// The connected outputs (those `--output` allows), read after `readOutputs`.
        case outputs([Output])
        /// udev said the device's connectors changed.
        case hotplug
        case state(StateMessage)
        /// A frame was put on the output: by a mode set (nothing pending) or a page flip (pending
        /// until `flipped`).
        case presented(OutputID, flipPending: Bool)
        /// A frame could not be shown: tried again a little later.
        case presentFailed(OutputID)
        case flipped(OutputID)
        case input(InputEvent)
        /// The answer to `takeMaster`.
        case master(gained: Bool)
        /// The answer to `checkOutputs`: the outputs that still scan out one of this renderer's
        /// frames.
        case outputsChecked(showingOurs: Set<OutputID>)
        /// Time passed (the loop woke at `nextWake`).
        case tick
        /// The outputs about to be read (the answer to this `readOutputs`) show the theme's still
        /// view from the first-frame cache: the entry animation is skipped, its clock starting
        /// where the entry ends.
        case entryCached
    }

    /// What the renderer's loop is to do, in order.
    public enum Action: Sendable, Equatable {
        /// Take the display lock (`splashd-kms wait` waits for it) / let it go.
        case takeLock, releaseLock
        /// Become DRM master (answer with `master(gained:)`).
        case takeMaster
        case dropMaster
        /// Read the connected outputs (answer with `outputs`); buffers are made for new ones.
        case readOutputs
        /// Draw `view` at `times(at: now)` with `focusRing` on this output and present it.
        case draw(OutputID)
        /// Look which outputs still show one of this renderer's frames (answer with
        /// `outputsChecked`).
        case checkOutputs
        /// Let every framebuffer go: one no longer on screen is removed; one still on screen is
        /// closed with `CLOSEFB` (it stays on screen), or kept where the kernel lacks it.
        case releaseFramebuffers
        /// Send splashd a command: `dismissed`, `retry`, `continue-offline`.
        case send(Request.Command)
        /// Close the device and wait for its node to come back (answer with `deviceOpened`).
        case waitForDevice
        /// Stop reading the input devices (while the app has the display) / read them again.
        case suspendInput, resumeInput
        /// A line for the log.
        case log(String)
    }

    /// How often master is asked for while a launch wants the display and another process has it.
    public static let masterRetry: Duration = .milliseconds(50)
    /// How long a flip may stay pending before the output is drawn again anyway.
    public static let flipLimit: Duration = .seconds(2)
    /// How long after the hand-off the outputs are looked at every 20 ms; every 250 ms after.
    public static let quickChecks: Duration = .seconds(10)
    /// How long after `finished` the outputs are still looked at when no app has taken them: then
    /// the last frame stays and nothing is looked at any more.
    public static let appPatience: Duration = .seconds(10)

    public let theme: Theme
    public let timeline: SplashTimeline
    /// The upright layout's button at a point: `SplashPainter.layout(_:width:height:)`'s
    /// `button(atX:y:)` (a function, so the machine draws and measures nothing itself).
    public let hitTest: (SplashView, _ width: Double, _ height: Double, _ x: Double, _ y: Double) -> SplashView.Button?
    /// Which output each input device's presses belong to.
    public var touch: TouchMapping

    public private(set) var stage: Stage = .noDevice
    /// The outputs drawn on (in `showing`), or last drawn on.
    public private(set) var outputs: [Output] = []
    /// What the splash shows now.
    public private(set) var view = SplashView()
    /// The launch the display was handed over in (nil while the splash wants the display).
    public private(set) var handedOff: String?
    /// The button Enter presses (Retry unless Tab or an arrow moved on).
    public private(set) var focus = 0
    /// A key moved the focus: the focused button shows its ring (the page's `:focus-visible`).
    public private(set) var focusVisible = false

    private var closesFramebuffers = false
    private var launch: String?
    private var phase: Phase = .loading
    private var shownAt: Duration = .zero
    /// Master was gained for the first time: the entry animation's clock starts when the outputs
    /// are read, with the first frame (reading them and making their buffers takes a while on a
    /// slow device, and the first frame is then still the entry's first, the background alone,
    /// which needs no text stack).
    private var entryClockPending = false
    /// `entryCached` came: the entry's clock starts at its end.
    private var entrySkipped = false
    /// The splash was shown before (master gained once): a return's entry runs from master
    /// gained, as it always did (its first frame needs nothing new: the text stack is up).
    private var shownOnce = false
    private var slowSince: Duration?
    /// Per output: a flip asked for at this instant and not done yet.
    private var pending: [OutputID: Duration] = [:]
    /// Outputs whose picture changed since they were last drawn.
    private var dirty: Set<OutputID> = []
    /// Outputs whose last frame was drawn mid-animation: once it is over, one more frame shows
    /// its end (a slow display may not have drawn one near it).
    private var drawnMoving: Set<OutputID> = []
    /// Outputs a frame could not be shown on, and when to try again.
    private var staleUntil: [OutputID: Duration] = [:]
    /// Outputs plugged in, and when udev said so (logged with their first frame).
    private var pluggedAt: [OutputID: Duration] = [:]
    /// A state asked for the hand-off while a flip was pending: it happens once the flips are done.
    private var handOffWanted = false
    private var handOffAt: Duration = .zero
    private var finishedAt: Duration?
    private var dismissedSent = false
    private var nextCheck: Duration?
    private var nextMasterTry: Duration?
    private var wantedDisplayAt: Duration?
    private var inputSuspended = false
    /// The wait for another process's master was logged (once per launch that waits).
    private var toldWaiting = false

    public init(theme: Theme, touch: TouchMapping = TouchMapping(),
                hitTest: @escaping (SplashView, Double, Double, Double, Double) -> SplashView.Button?) {
        self.theme = theme
        self.timeline = SplashTimeline(reduceMotion: theme.motion == .reduce)
        self.touch = touch
        self.hitTest = hitTest
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
    public func flipPending(_ output: OutputID) -> Bool { pending[output] != nil }

    /// When the loop must wake with `tick` if nothing else happens first; nil: only an event wakes
    /// it (nothing moves, nothing is awaited).
    public func nextWake(after now: Duration) -> Duration? {
        switch stage {
        case .noDevice, .away:
            return nil
        case .waitingForMaster:
            return nextMasterTry
        case .handingOff:
            return nextCheck
        case .showing:
            var wake: Duration?
            func soonest(_ at: Duration) { wake = min(wake ?? at, at) }
            for (_, asked) in pending { soonest(asked + Self.flipLimit) }
            for (_, at) in staleUntil { soonest(at) }
            if !handOffWanted {
                let moving = timeline.isMoving(view, at: times(at: now))
                if outputs.contains(where: { isDue($0.id, moving: moving) }) { soonest(now) }
            }
            return wake
        }
    }

    /// Whether the output is to be drawn now: no flip pending on it, not waiting after a failure,
    /// and its picture changed, moves, or moved in its last frame.
    private func isDue(_ id: OutputID, moving: Bool) -> Bool {
        pending[id] == nil && staleUntil[id] == nil && (dirty.contains(id) || moving || drawnMoving.contains(id))
    }

    /// Takes in what happened at `now` (a monotonic instant, from any origin); returns what to do.
    public mutating func handle(_ input: Input, at now: Duration) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .deviceOpened(let master, let closeFB):
            closesFramebuffers = closeFB
            pending = [:]
            staleUntil = [:]
            if handedOff != nil {
                // The app's turn: a device that came back (or a renderer started while the app runs)
                // is not kept from it.
                if master { actions.append(.dropMaster) }
                stage = .away
            } else if master {
                actions += becomeMaster(at: now)
            } else {
                stage = .waitingForMaster
                nextMasterTry = now + Self.masterRetry
                wantedDisplayAt = wantedDisplayAt ?? now
                actions.append(.log("another process is the device's master (the app has the display): waiting for it to let go"))
            }
        case .deviceRemoved:
            outputs = []
            pending = [:]
            staleUntil = [:]
            dirty = []
            if stage == .handingOff, phase == .dismissing, !dismissedSent {
                // Nothing of ours is on screen any more.
                actions.append(.send(.dismissed))
                dismissedSent = true
            }
            if handOffWanted {
                // The app takes the device that comes back.
                handOffWanted = false
                handedOff = launch
            }
            stage = .noDevice
            actions.append(.waitForDevice)
        case .outputs(let connected):
            guard stage == .showing else { break }
            actions += outputsRead(connected, at: now)
        case .entryCached:
            if entryClockPending { entrySkipped = true }
        case .hotplug:
            if stage == .showing { actions.append(.readOutputs) }
        case .state(let state):
            actions += stateArrived(state, at: now)
        case .presented(let id, let flipPending):
            if flipPending { pending[id] = now }
            if let at = pluggedAt.removeValue(forKey: id), let output = outputs.first(where: { $0.id == id }) {
                actions.append(.log("\(output) plugged in: the splash on it \(Int(Self.ms(now - at).rounded())) ms after udev's event"))
            }
        case .presentFailed(let id):
            staleUntil[id] = now + .milliseconds(100)
        case .flipped(let id):
            pending[id] = nil
        case .input(let event):
            actions += pressed(event, at: now)
        case .master(let gained):
            guard stage == .waitingForMaster else {
                // Asked for, and no longer wanted (the launch handed over meanwhile).
                if gained { actions.append(.dropMaster) }
                break
            }
            if gained {
                actions += becomeMaster(at: now)
            } else {
                if !toldWaiting {
                    toldWaiting = true
                    actions.append(.log("another process (the app) still has the display: asking for it every \(Self.masterRetry)"))
                }
                nextMasterTry = now + Self.masterRetry
            }
        case .outputsChecked(let ours):
            guard stage == .handingOff else { break }
            actions += checked(ours, at: now)
        case .tick:
            break
        }
        actions += pump(at: now)
        return actions
    }

    // MARK: - States

    /// Whether a state lets the app take the display: in mode `launch`, its destination is
    /// decided with only `signal` steps left, or the launch is dismissing or over. (An update or a
    /// shutdown keeps the display.)
    public static func handsOver(_ state: StateMessage) -> Bool {
        state.mode == .launch && (state.destination != nil || state.phase == .dismissing || state.phase == .finished)
    }

    /// Whether a state takes the display back: an update or a shutdown, whatever the launch; or a
    /// launch not handed over, in `loading` or `error` (the page's rule: a new launch shows the
    /// splash again over the app).
    private func wantsSplashBack(_ state: StateMessage) -> Bool {
        if state.mode != .launch { return true }
        return state.launch != handedOff && !Self.handsOver(state) && (state.phase == .loading || state.phase == .error)
    }

    private mutating func stateArrived(_ state: StateMessage, at now: Duration) -> [Action] {
        var actions: [Action] = []
        let newLaunch = state.launch != launch
        launch = state.launch
        phase = state.phase
        if state.phase == .finished, finishedAt == nil || newLaunch { finishedAt = now }
        if state.phase != .finished { finishedAt = nil }
        switch stage {
        case .handingOff, .away:
            if wantsSplashBack(state) {
                actions += takeBack(state, at: now)
            } else if newLaunch {
                // A launch that began and handed over while the renderer was away (or slept):
                // nothing of it was shown, so nothing is in the way of its dismissal.
                handedOff = state.launch
                dismissedSent = false
                if stage == .away, state.phase == .dismissing {
                    actions.append(.send(.dismissed))
                    dismissedSent = true
                }
            }
        case .waitingForMaster:
            show(state, at: now)
            if Self.handsOver(state) {
                actions.append(.log("the launch handed the display over before it was free: the app keeps it"))
                actions += giveUpWaiting()
                if state.phase == .dismissing {
                    actions.append(.send(.dismissed))
                    dismissedSent = true
                }
            }
        case .noDevice:
            // Whose the display is when the device comes back.
            if Self.handsOver(state) {
                handedOff = state.launch
            } else if wantsSplashBack(state) {
                handedOff = nil
            }
            show(state, at: now)
        case .showing:
            show(state, at: now)
            handOffWanted = Self.handsOver(state)
        }
        return actions
    }

    /// Takes `state` in as what the splash shows.
    private mutating func show(_ state: StateMessage, at now: Duration) {
        let next = SplashView(state: state, theme: theme)
        if next.slow, slowSince == nil { slowSince = now }
        if !next.slow { slowSince = nil }
        if next.error == nil || view.error == nil {
            focus = 0
            focusVisible = false
        }
        // A state that looks as the last did is not drawn again (nothing is redrawn while nothing
        // moves).
        guard next != view else { return }
        view = next
        dirty.formUnion(outputs.map(\.id))
    }

    /// A later launch wants the splash: the lock at once (an app restarted now waits in
    /// `splashd-kms wait`), then master.
    private mutating func takeBack(_ state: StateMessage, at now: Duration) -> [Action] {
        // (In `handingOff` the framebuffers are still this renderer's: drawn on again.)
        let why = state.mode == .launch
            ? "launch \(state.launch) (\(state.reason.rawValue), \(state.phase.rawValue))"
            : state.mode == .update ? "an update" : "the shutdown"
        var actions: [Action] = [.log("\(why): taking the display back")]
        handedOff = nil
        handOffWanted = false
        dismissedSent = false
        nextCheck = nil
        view = SplashView()
        slowSince = nil
        show(state, at: now)
        wantedDisplayAt = now
        toldWaiting = false
        actions.append(.takeLock)
        stage = .waitingForMaster
        nextMasterTry = now + Self.masterRetry
        actions.append(.takeMaster)
        return actions
    }

    private mutating func giveUpWaiting() -> [Action] {
        stage = .away
        handedOff = launch
        nextMasterTry = nil
        wantedDisplayAt = nil
        return [.releaseLock]
    }

    /// Master is this process's: every output drawn at once, the entry animation from now.
    private mutating func becomeMaster(at now: Duration) -> [Action] {
        var actions: [Action] = []
        if let since = wantedDisplayAt {
            actions.append(.log("the display is ours \(Int(Self.ms(now - since).rounded())) ms after the launch wanted it"))
        }
        stage = .showing
        nextMasterTry = nil
        wantedDisplayAt = nil
        shownAt = now
        entryClockPending = !shownOnce
        shownOnce = true
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
        var actions: [Action] = []
        let before = Set(outputs.map(\.id))
        let first = before.isEmpty
        for output in outputs where !connected.contains(where: { $0.id == output.id }) {
            actions.append(.log("\(output.name) unplugged: let go"))
            pending[output.id] = nil
            staleUntil[output.id] = nil
        }
        outputs = connected
        if entryClockPending, !connected.isEmpty {
            entryClockPending = false
            shownAt = entrySkipped ? now - .milliseconds(Int64(timeline.entryLength)) : now
            entrySkipped = false
            if let since = slowSince { slowSince = max(since, now) }
        }
        for output in connected where !before.contains(output.id) {
            dirty.insert(output.id)
            if !first { pluggedAt[output.id] = now }
        }
        return actions
    }

    // MARK: - Frames

    /// Draws what is due: every output with no flip pending whose picture changed or moves.
    private mutating func pump(at now: Duration) -> [Action] {
        var actions: [Action] = []
        for (id, asked) in pending where now >= asked + Self.flipLimit {
            let name = outputs.first { $0.id == id }?.name ?? "output \(id)"
            actions.append(.log("\(name): no flip for \(Self.flipLimit)"))
            pending[id] = nil
        }
        for (id, at) in staleUntil where now >= at {
            staleUntil[id] = nil
            dirty.insert(id)
        }
        if stage == .handingOff, let at = nextCheck, now >= at {
            nextCheck = nil
            actions.append(.checkOutputs)
        }
        if stage == .waitingForMaster, let at = nextMasterTry, now >= at {
            nextMasterTry = nil
            actions.append(.takeMaster)
        }
        guard stage == .showing else { return actions }
        if handOffWanted {
            if pending.isEmpty { actions += handOff(at: now) }
            return actions
        }
        let times = times(at: now)
        let moving = timeline.isMoving(view, at: times)
        for output in outputs where isDue(output.id, moving: moving) {
            actions.append(.draw(output.id))
            dirty.remove(output.id)
            if moving { drawnMoving.insert(output.id) } else { drawnMoving.remove(output.id) }
        }
        return actions
    }

    /// The hand-off with no gap: no more frames, the last one stays on every output; master and
    /// the lock given up; the outputs looked at until the app shows.
    private mutating func handOff(at now: Duration) -> [Action] {
        handOffWanted = false
        stage = .handingOff
        handedOff = launch
        handOffAt = now
        dismissedSent = false
        nextCheck = nil
        dirty = []
        drawnMoving = []
        let how = closesFramebuffers ? "CLOSEFB" : "no CLOSEFB: waiting for every output"
        return [.dropMaster, .releaseLock, .log("handing the display to the app (\(how))"), .checkOutputs]
    }

    private mutating func checked(_ ours: Set<OutputID>, at now: Duration) -> [Action] {
        var actions: [Action] = []
        let shown = outputs.filter { ours.contains($0.id) }
        let appShows = outputs.isEmpty || (closesFramebuffers ? shown.count < outputs.count : shown.isEmpty)
        if appShows, phase == .dismissing, !dismissedSent {
            actions.append(.send(.dismissed))
            dismissedSent = true
        }
        if appShows, phase == .finished || dismissedSent {
            if !shown.isEmpty, closesFramebuffers {
                actions.append(.log("the splash stays on \(shown.map(\.name).joined(separator: ", ")) (CLOSEFB)"))
            }
            actions += goAway(log: "the app has the display")
            return actions
        }
        if phase == .finished, let finishedAt, now - finishedAt >= Self.appPatience {
            actions += goAway(log: "no app took the display: the splash's last frame stays")
            return actions
        }
        let interval: Duration = now - handOffAt < Self.quickChecks ? .milliseconds(20) : .milliseconds(250)
        nextCheck = now + interval
        return actions
    }

    private mutating func goAway(log: String) -> [Action] {
        stage = .away
        nextCheck = nil
        inputSuspended = true
        return [.releaseFramebuffers, .suspendInput, .log(log)]
    }

    // MARK: - Input

    private mutating func pressed(_ event: InputEvent, at now: Duration) -> [Action] {
        guard stage == .showing, !handOffWanted, view.phase == .error, let error = view.error, !error.buttons.isEmpty else { return [] }
        var pressed: SplashView.Button?
        var on = ""
        switch event {
        case .press(let x, let y, let device):
            guard let output = touch.output(for: device, among: outputs) else { return [] }
            on = ", pressed on \(output.name)"
            let w = Double(output.width), h = Double(output.height)
            let point = output.rotation.upright(x: x * w, y: y * h, width: w, height: h)
            let upright = output.rotation.upright(width: w, height: h)
            pressed = hitTest(view, upright.width, upright.height, point.x, point.y)
        case .activate:
            pressed = error.buttons[min(focus, error.buttons.count - 1)]
        case .focusNext, .focusPrevious:
            let step = event == .focusNext ? 1 : error.buttons.count - 1
            focus = (focus + step) % error.buttons.count
            focusVisible = true
            dirty.formUnion(outputs.map(\.id))
        }
        guard let pressed else { return [] }
        return [.log("\(pressed.title)\(on)"), .send(pressed == .retry ? .retry : .continueOffline)]
    }

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
