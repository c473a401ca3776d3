public import SplashProtocol
import SplashCore

extension RendererMachine {
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

    mutating func stateArrived(_ message: StateMessage, at now: Duration) -> [Action] {
        if case .connected(let states) = link {
            // The connection's first state is what the splash shows from here: it is given back
            // once that stands still (not before: the first state's frame would fault it all in).
            if states == 0 { giveBackPending = true }
            link = .connected(states: states + 1)
        }
        var actions: [Action] = []
        let newLaunch = message.launch != launch
        // The launch's dismissal begins with this state: the app shows, and nothing of the splash
        // is on screen where the renderer has no device or the app has the display.
        let dismissalBegins = message.phase == .dismissing && (newLaunch || phase != .dismissing)
        launch = message.launch
        phase = message.phase
        if message.phase == .finished, finishedAt == nil || newLaunch { finishedAt = now }
        if message.phase != .finished { finishedAt = nil }
        switch state {
        case .handingOff, .away:
            if wantsSplashBack(message) {
                actions += takeBack(message, at: now)
            } else {
                // A launch that began and handed over while the renderer was away (or slept), or
                // the one whose device came while it had handed over: nothing of it was shown,
                // so nothing is in the way of its dismissal.
                if newLaunch { handedOff = message.launch }
                if case .handingOff(var handingOff) = state {
                    if newLaunch {
                        handingOff.dismissedSent = false
                        state = .handingOff(handingOff)
                    }
                } else if dismissalBegins {
                    actions.append(.send(.dismissed))
                }
            }
        case .waitingForMaster:
            show(message, at: now)
            if Self.handsOver(message) {
                actions.append(.log("the launch handed the display over before it was free: the app keeps it"))
                actions += giveUpWaiting()
                if message.phase == .dismissing { actions.append(.send(.dismissed)) }
            }
        case .noDevice:
            // Whose the display is when the device comes (back). Nothing of the splash is on
            // screen: a launch that hands over lets the display lock go at once, as a hand-off
            // does (the app's `splashd-kms wait` returns, and the app takes the device when it
            // comes), and is dismissed at once; one that wants the splash back takes the lock
            // again. The lock is held in this stage exactly while `handedOff` is nil.
            if Self.handsOver(message) {
                if handedOff == nil {
                    actions += [.releaseLock, .log("launch \(message.launch) hands the display over with no device open: the app's")]
                }
                handedOff = message.launch
                if dismissalBegins { actions.append(.send(.dismissed)) }
            } else if wantsSplashBack(message) {
                if handedOff != nil { actions.append(.takeLock) }
                handedOff = nil
            }
            show(message, at: now)
        case .showing:
            show(message, at: now)
            updateShowing { $0.handOffWanted = Self.handsOver(message) }
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
        let all = outputs.map(\.id)
        updateShowing { $0.dirty.formUnion(all) }
    }

    /// A later launch wants the splash: the lock at once (an app restarted now waits in
    /// `splashd-kms wait`), then master.
    private mutating func takeBack(_ message: StateMessage, at now: Duration) -> [Action] {
        // (In `handingOff` the framebuffers are still this renderer's: drawn on again.)
        let why = message.mode == .launch
            ? "launch \(message.launch) (\(message.reason.rawValue), \(message.phase.rawValue))"
            : message.mode == .update ? "an update" : "the shutdown"
        handedOff = nil
        view = SplashView()
        slowSince = nil
        show(message, at: now)
        state = .waitingForMaster(.init(wantedSince: now, nextTry: now + Self.masterRetry))
        return [.log("\(why): taking the display back"), .takeLock, .takeMaster]
    }

    private mutating func giveUpWaiting() -> [Action] {
        state = .away
        handedOff = launch
        return [.releaseLock]
    }

    // MARK: - Frames

    /// Does what is due: the flips overdue, the outputs to look at, master to ask for, splashd to
    /// connect to, and the draws: every output with no flip pending whose picture changed or moves.
    mutating func pump(at now: Duration) -> [Action] {
        var actions: [Action] = []
        if case .lost(let at?) = link, now >= at {
            link = .lost(retryAt: nil)
            actions.append(.connect)
        }
        switch state {
        case .noDevice, .away:
            break
        case .handingOff(var handingOff):
            if let at = handingOff.nextCheck, now >= at {
                handingOff.nextCheck = nil
                state = .handingOff(handingOff)
                actions.append(.checkOutputs)
            }
        case .waitingForMaster(var waiting):
            if let at = waiting.nextTry, now >= at {
                waiting.nextTry = nil
                state = .waitingForMaster(waiting)
                actions.append(.takeMaster)
            }
        case .showing(var showing):
            for (id, asked) in showing.pending where now >= asked + Self.flipLimit {
                let name = outputs.first { $0.id == id }?.name ?? "output \(id)"
                actions.append(.log("\(name): no flip for \(Self.flipLimit)"))
                showing.pending[id] = nil
            }
            for (id, at) in showing.staleUntil where now >= at {
                showing.staleUntil[id] = nil
                showing.dirty.insert(id)
            }
            if showing.handOffWanted {
                if showing.pending.isEmpty { return actions + handOff(at: now) }
                state = .showing(showing)
                return actions
            }
            let moving = timeline.isMoving(view, at: times(at: now))
            for output in outputs where isDue(output.id, in: showing, moving: moving) {
                actions.append(.draw(output.id))
                showing.dirty.remove(output.id)
                if moving { showing.drawnMoving.insert(output.id) } else { showing.drawnMoving.remove(output.id) }
                if showing.cachedNext.remove(output.id) != nil, logoPending { showing.showsLogo.insert(output.id) }
            }
            state = .showing(showing)
        }
        return actions
    }

    /// Once the splash stands still after its first frames (or its connection's first state):
    /// the first-frame cache stored, `splashd-kms-first-frame`'s framebuffers let go, and the
    /// memory given back. Nothing stands still while an answer is awaited, a frame is due or
    /// pending, or the logo is still to come.
    mutating func giveBack(after actions: [Action], at now: Duration) -> [Action] {
        let linkAllows: Bool
        switch link {
        case .notYet: linkAllows = false
        case .absent: linkAllows = true
        case .connected(let states): linkAllows = states > 0
        case .lost: linkAllows = false
        }
        guard giveBackPending, linkAllows, !logoPending, stage == .showing || stage == .handingOff, !outputs.isEmpty,
              !actions.contains(where: \.awaitsAnswer), framesWake(after: now) == nil
        else { return [] }
        giveBackPending = false
        var giving: [Action] = []
        if !framesToStore.isEmpty {
            giving.append(.storeFirstFrames(framesToStore))
            framesToStore = []
        }
        if helperFrames { giving.append(.releaseHelperFrames) }
        return giving + [.giveBackMemory]
    }

    /// The hand-off with no gap: no more frames, the last one stays on every output; master and
    /// the lock given up; the outputs looked at until the app shows.
    private mutating func handOff(at now: Duration) -> [Action] {
        state = .handingOff(.init(since: now))
        handedOff = launch
        let how = closesFramebuffers ? "CLOSEFB" : "no CLOSEFB: waiting for every output"
        return [.dropMaster, .releaseLock, .log("handing the display to the app (\(how))"), .checkOutputs]
    }

    mutating func checked(_ ours: Set<OutputID>, at now: Duration) -> [Action] {
        guard case .handingOff(var handingOff) = state else { return [] }
        var actions: [Action] = []
        let shown = outputs.filter { ours.contains($0.id) }
        let appShows = outputs.isEmpty || (closesFramebuffers ? shown.count < outputs.count : shown.isEmpty)
        if appShows, phase == .dismissing, !handingOff.dismissedSent {
            actions.append(.send(.dismissed))
            handingOff.dismissedSent = true
        }
        if appShows, phase == .finished || handingOff.dismissedSent {
            if !shown.isEmpty, closesFramebuffers {
                actions.append(.log("the splash stays on \(shown.map(\.name).joined(separator: ", ")) (CLOSEFB)"))
            }
            return actions + goAway(log: "the app has the display")
        }
        if phase == .finished, let finishedAt, now - finishedAt >= Self.appPatience {
            return actions + goAway(log: "no app took the display: the splash's last frame stays")
        }
        let interval: Duration = now - handingOff.since < Self.quickChecks ? .milliseconds(20) : .milliseconds(250)
        handingOff.nextCheck = now + interval
        state = .handingOff(handingOff)
        return actions
    }

    /// Away: the framebuffers let go and input suspended. A splash that never stood still (the app
    /// came while it moved) stores its first frames now, before the outputs are let go: else a
    /// quick app would leave every boot without the cache. Not while the logo is still to come: the
    /// picture would lack it.
    private mutating func goAway(log: String) -> [Action] {
        state = .away
        inputSuspended = true
        var actions: [Action] = []
        if !framesToStore.isEmpty, !logoPending {
            actions.append(.storeFirstFrames(framesToStore))
            framesToStore = []
        }
        return actions + [.releaseFramebuffers, .suspendInput, .log(log)]
    }

    mutating func presented(_ id: OutputID, flipPending: Bool, at now: Duration) -> [Action] {
        guard case .showing(var showing) = state else { return [] }
        var actions: [Action] = []
        if flipPending { showing.pending[id] = now }
        if let at = showing.pluggedAt.removeValue(forKey: id), let output = outputs.first(where: { $0.id == id }) {
            actions.append(.log("\(output) plugged in: the splash on it \(Int(Self.ms(now - at).rounded())) ms after udev's event"))
        }
        state = .showing(showing)
        return actions
    }

    // MARK: - Input

    mutating func pressed(_ event: InputEvent, at now: Duration) -> [Action] {
        guard case .showing(let showing) = state, !showing.handOffWanted, view.phase == .error, let error = view.error,
              !error.buttons.isEmpty
        else { return [] }
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
            let all = outputs.map(\.id)
            updateShowing { $0.dirty.formUnion(all) }
        }
        guard let pressed else { return [] }
        return [.log("\(pressed.title)\(on)"), .send(pressed == .retry ? .retry : .continueOffline)]
    }
}
