public import SplashCore
public import SplashProtocol

/// The modes beside the launch (`ModeMachine`): an update being installed, the device going down.
extension LaunchController {
    /// An updater's word from outside the socket (psplash's FIFO, RAUC), applied in the loop's
    /// order.
    public nonisolated func updater(_ input: ModeMachine.UpdateInput, from source: UpdateStatus.Source) {
        submit(.updater(input, source: source))
    }

    /// Carries out the mode machine's actions. An update's end and a shutdown are published at
    /// once (`urgent`: so are replies to commands): every subscriber sees "Restarting…" or the
    /// update's error, even when the next update begins within the same frame. Everything else,
    /// a change of mode included, is coalesced as a plugin's progress is: an updater's progress
    /// and messages come often (SWUpdate), and a writer that loops `MSG`/`QUIT` on psplash's FIFO
    /// otherwise sent a state for every change (65,000 to one subscriber).
    func apply(_ actions: [ModeMachine.Action], urgent: Bool) {
        var changed = false
        var mustShow = false
        for action in actions {
            switch action {
            case .event(let event):
                log(event)
                history.record(event, atMs: (now - machine.launchStartedAt).milliseconds)
                switch event {
                case .updateFinished, .shutdownStarted: mustShow = true
                case .updateStarted, .updateQuit, .modeChanged: break
                }
            case .publish:
                changed = true
            case .holdLaunch(let held):
                apply(machine.hold(held, at: now), coalescing: true)
            }
        }
        defer { reschedule() }
        guard changed else { return }
        switch pacer.changed(urgent: urgent || mustShow) {
        case .publish: publishNow()
        case .queueFlush: continuation.yield(.flush)
        case .wait: break
        }
    }

    /// Logs a mode's event. An update's end and a shutdown always; an update's start, psplash's
    /// `QUIT` and a change of mode within `modeLogLimit` (a writer looping `MSG`/`QUIT` on the
    /// FIFO made three records a cycle: 60,000 for 20,000 cycles), the rest counted and told with
    /// the next one logged or the update's end.
    private func log(_ event: ModeMachine.Event) {
        switch event {
        case .updateFinished, .shutdownStarted:
            tellFoldedModeLines(modeLogLimit.takeFolded())
        case .updateStarted, .updateQuit, .modeChanged:
            let (logged, folded) = modeLogLimit.admit(at: now)
            guard logged else { return }
            tellFoldedModeLines(folded)
        }
        ModeLog.log(event, launch: machine.launch, to: logger)
    }

    private func tellFoldedModeLines(_ folded: Int) {
        guard folded > 0 else { return }
        logger.notice("\(modeLogLimit.foldedLine(folded, "update starts, QUITs and changes of mode"))")
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
