public import SplashProtocol

/// Which mode the splash is in beside the launch: an update being installed, the device going
/// down. A value with no I/O and no clock, as `LaunchMachine` is: its owner feeds it what the
/// updaters and the shutdown unit said, each with the instant it happened, and carries out the
/// `Action`s it returns (log an event, publish the state, hold or release the launch).
///
/// Rules:
/// - An update begins with the first word of an updater (a progress, a message) while none runs,
///   and ends with the updater's end: `succeeded` ("Restarting…") or `failed` (its error) stay
///   for `endView`, then the mode goes back; psplash's `QUIT` ends it at once.
/// - A shutdown is for good: nothing ends it but the power, and the first word says which
///   (reboot or power-off): a second is nothing new, of either kind (the view does not flip
///   between "Restarting" and "Shutting down" while the device goes down).
/// - The launch is held (it does not leave `loading` for `dismissing`) while the mode is not
///   `launch`.
public struct ModeMachine: Sendable {
    /// What happened worth a log record (and, under journald, a `MESSAGE_ID`).
    public enum Event: Sendable, Equatable {
        case updateStarted(UpdateStatus.Source)
        /// The updater said it ended, after `duration`; `result` is `succeeded` or `failed`.
        case updateFinished(UpdateStatus.Source, result: UpdateStatus.Result, error: String?, duration: Duration)
        /// psplash's `QUIT`: the writer is done with the splash (it says no more).
        case updateQuit(UpdateStatus.Source, duration: Duration)
        case shutdownStarted(ShutdownKind)
        case modeChanged(from: SplashMode, to: SplashMode)
    }

    public enum Action: Sendable, Equatable {
        case event(Event)
        /// The state changed: publish it.
        case publish
        /// Hold the launch (true) or let it go on (false).
        case holdLaunch(Bool)
    }

    /// What an updater said (the protocol's `update` command carries it, psplash's FIFO and RAUC
    /// are read into it).
    public typealias UpdateInput = SplashProtocol.UpdateInput

    /// How long a finished update's view ("Restarting…", or its error) stays.
    public var endView: Duration

    public private(set) var update: UpdateStatus?
    /// When the update began.
    public private(set) var updateSince: Duration?
    /// When the finished update's view goes.
    public private(set) var endsAt: Duration?
    public private(set) var shutdown: ShutdownKind?

    public init(endView: Duration = .seconds(10)) {
        self.endView = endView
    }

    /// The mode states say now.
    public var mode: SplashMode {
        if shutdown != nil { return .shutdown }
        return update != nil ? .update : .launch
    }

    /// When `advance(to:)` must be called next, if ever.
    public var nextDeadline: Duration? { endsAt }

    /// An updater (`source`) said `input` at `now`.
    public mutating func update(_ input: UpdateInput, from source: UpdateStatus.Source, at now: Duration) -> [Action] {
        let before = self
        var events: [Event] = []
        func begin() {
            update = UpdateStatus(source: source)
            updateSince = now
            endsAt = nil
            events.append(.updateStarted(source))
        }
        switch input {
        case .progress(let fraction):
            guard fraction.isFinite else { return [] }
            if update?.result != .running { begin() }
            update?.progress = min(1, max(0, fraction))
        case .message(let text):
            if update?.result != .running { begin() }
            update?.message = text.isEmpty ? nil : text
        case .step(let fraction, let text):
            guard fraction.isFinite else { return [] }
            if update?.result != .running { begin() }
            update?.progress = min(1, max(0, fraction))
            update?.message = text.isEmpty ? nil : text
        case .ended(let result, let error):
            guard result != .running else { return [] }
            if update == nil { begin() }
            guard var status = update, status.result == .running else { return [] }
            status.result = result
            status.error = result == .failed ? error : nil
            if result == .succeeded { status.progress = 1 }
            update = status
            endsAt = now + endView
            events.append(.updateFinished(status.source, result: result, error: status.error, duration: now - (updateSince ?? now)))
        case .quit:
            guard let status = update else { return [] }
            if status.result == .running {
                events.append(.updateQuit(status.source, duration: now - (updateSince ?? now)))
            }
            clearUpdate()
        }
        return actions(since: before, events)
    }

    /// The device goes down (`kind`) at `now`: for good. Once it does, nothing changes.
    public mutating func shutDown(_ kind: ShutdownKind, at now: Duration) -> [Action] {
        guard shutdown == nil else { return [] }
        let before = self
        shutdown = kind
        return actions(since: before, [.shutdownStarted(kind)])
    }

    /// Time passed: a finished update's view goes once `endView` is over.
    public mutating func advance(to now: Duration) -> [Action] {
        guard let endsAt, endsAt <= now else { return [] }
        let before = self
        clearUpdate()
        return actions(since: before, [])
    }

    private mutating func clearUpdate() {
        update = nil
        updateSince = nil
        endsAt = nil
    }

    /// The actions for a change from `before`: its events, the mode's change, the launch's hold,
    /// and a state to publish when anything a state shows changed.
    private func actions(since before: ModeMachine, _ events: [Event]) -> [Action] {
        var actions = events.map(Action.event)
        if before.mode != mode {
            actions.append(.event(.modeChanged(from: before.mode, to: mode)))
            if (before.mode == .launch) != (mode == .launch) { actions.append(.holdLaunch(mode != .launch)) }
        }
        if before.update != update || before.shutdown != shutdown { actions.append(.publish) }
        return actions
    }
}
