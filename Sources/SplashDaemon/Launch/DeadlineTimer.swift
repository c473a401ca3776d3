/// One timer armed for the launch machine's next deadline, on an injected clock.
///
/// A timer already armed for the same instant or an earlier one is kept: re-arming at every
/// published state cost a task, a cancellation and two thread wake-ups. One that fires early
/// just leads to a no-op `advance(to:)`, after which the next is armed. Each firing carries its
/// number, so a cancelled timer that fired anyway is recognised as stale.
struct DeadlineTimer<C: Clock>: Sendable where C.Duration == Duration {
    private let clock: C
    private let origin: C.Instant
    private var armed: (deadline: Duration, task: Task<Void, Never>, number: UInt64)?
    private var count: UInt64 = 0

    /// A timer on `clock`, whose deadlines are durations since `origin`.
    init(clock: C, origin: C.Instant) {
        self.clock = clock
        self.origin = origin
    }

    /// Arms the timer for `deadline` (none: disarms it); `fire` gets the number of the timer
    /// when its instant comes.
    mutating func arm(for deadline: Duration?, fire: @escaping @Sendable (UInt64) -> Void) {
        if let current = armed {
            if let deadline, current.deadline <= deadline { return }
            current.task.cancel()
            armed = nil
        }
        guard let deadline else { return }
        count += 1
        let number = count
        let instant = origin.advanced(by: deadline)
        let clock = self.clock
        let task = Task {
            do {
                try await clock.sleep(until: instant, tolerance: nil)
                fire(number)
            } catch {}
        }
        armed = (deadline, task, number)
    }

    /// The timer `number` fired; the armed one is gone (a stale firing changes nothing).
    mutating func fired(_ number: UInt64) {
        if armed?.number == number { armed = nil }
    }

    mutating func cancel() {
        armed?.task.cancel()
        armed = nil
    }
}
