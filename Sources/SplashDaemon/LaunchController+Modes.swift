public import SplashCore

/// The modes beside the launch (`ModeMachine`): an update being installed, the device going down.
extension LaunchController {
    /// An updater's word from outside the socket (psplash's FIFO, RAUC), applied in the loop's
    /// order.
    public nonisolated func updater(_ input: ModeMachine.UpdateInput, from source: UpdateStatus.Source) {
        submit(.updater(input, source: source))
    }

    /// Carries out the mode machine's actions. A change of mode is published at once; an
    /// updater's progress and messages are coalesced as a plugin's are (SWUpdate reports often).
    func apply(_ actions: [ModeMachine.Action], urgent: Bool) {
        var changed = false
        var modeChanged = false
        for action in actions {
            switch action {
            case .event(let event):
                ModeLog.log(event, launch: machine.launch, to: logger)
                history.record(event, atMs: (now - machine.launchStartedAt).milliseconds)
                if case .modeChanged = event { modeChanged = true }
            case .publish:
                changed = true
            case .holdLaunch(let held):
                apply(machine.hold(held, at: now), coalescing: true)
            }
        }
        defer { reschedule() }
        guard changed else { return }
        switch pacer.changed(urgent: urgent || modeChanged) {
        case .publish: publishNow()
        case .queueFlush: continuation.yield(.flush)
        case .wait: break
        }
    }

    /// The launch's state with the mode's.
    func decorated(_ state: StateMessage) -> StateMessage {
        var state = state
        state.mode = modes.mode
        state.update = modes.mode == .update ? modes.update : nil
        state.shutdown = modes.shutdown
        return state
    }

    /// A machine that replaced the launch's (a reload) is held as the one before was.
    func holdAsBefore() {
        if modes.mode != .launch { _ = machine.hold(true, at: now) }
    }
}
