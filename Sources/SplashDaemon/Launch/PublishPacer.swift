/// When a changed state goes out: at once for phase changes and replies to commands; for step
/// results, progress and messages once the inputs queued behind them are applied, and at most
/// once per `interval` (a burst of them is one state).
///
/// A value type with no clock: the controller asks it what to do and carries that out.
struct PublishPacer: Sendable {
    /// What to do about a change.
    enum Decision: Equatable {
        /// Publish now.
        case publish
        /// Queue a flush behind the inputs waiting now.
        case queueFlush
        /// A flush is queued already, or a state is held: it takes this change along.
        case wait
    }

    /// The shortest time between two coalesced states.
    let interval: Duration
    /// The state changed since the last publish.
    private(set) var pending = false
    /// A flush is queued behind the inputs waiting now.
    private var flushQueued = false
    /// When the last state was published.
    private var lastAt: Duration?
    /// A coalesced state held back by `interval`, due at this instant: the timer wakes for it.
    private(set) var heldUntil: Duration?

    init(interval: Duration) {
        self.interval = interval
    }

    /// The state changed; `urgent` for phase changes and replies to commands.
    mutating func changed(urgent: Bool) -> Decision {
        pending = true
        if urgent { return .publish }
        if flushQueued || heldUntil != nil { return .wait }
        flushQueued = true
        return .queueFlush
    }

    /// The queued flush came up: whether to publish now (otherwise the state is held until
    /// `heldUntil`).
    mutating func flush(at now: Duration) -> Bool {
        flushQueued = false
        guard pending else { return false }
        if let lastAt, now < lastAt + interval {
            heldUntil = heldUntil ?? lastAt + interval
            return false
        }
        return true
    }

    /// Whether a held state is due at `now`.
    func isDue(at now: Duration) -> Bool { heldUntil.map { $0 <= now } ?? false }

    /// A state goes out at `now`; false when nothing changed since the last one.
    mutating func publishing(at now: Duration) -> Bool {
        heldUntil = nil
        guard pending else { return false }
        pending = false
        lastAt = now
        return true
    }
}
