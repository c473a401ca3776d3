import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process group of one external plugin run, shared by its body and its cancellation handler,
/// and the one teardown of that group: SIGTERM, then SIGKILL once `clock` passes `grace`.
///
/// Cancellation may come before the group exists (while spawning) or after: whichever of
/// `started(group:)` and `cancel()` comes second sends the SIGTERM, exactly once, and starts the
/// teardown that SIGKILLs what is left after the grace. `finish()`, after the run, waits for that
/// teardown, or tears down the members the main process left behind.
final class GroupLifecycle<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var group: pid_t?
        var cancelled = false
        /// Started by the SIGTERM of a cancellation, or by `finish()`; awaited by `finish()`.
        var teardown: Task<ProcessGroup.Teardown, Never>?
    }

    private let state = Mutex(State())
    private let grace: Duration
    private let clock: C

    /// A lifecycle whose teardowns wait `grace` on `clock` between SIGTERM and SIGKILL.
    init(grace: Duration, clock: C) {
        self.grace = grace
        self.clock = clock
    }

    /// The process group id, once the process was spawned.
    var group: pid_t? { state.withLock { $0.group } }

    /// Whether the run was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Records the spawned process group; sends SIGTERM if cancellation came first.
    func started(group: pid_t) {
        state.withLock { state in
            state.group = group
            if state.cancelled {
                terminate(&state)
            }
        }
    }

    /// Records cancellation; sends SIGTERM to the group if it exists.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if state.group != nil {
                terminate(&state)
            }
        }
    }

    /// After the run: waits for the teardown a cancellation started, or tears down what is left
    /// of the group (SIGTERM, SIGKILL after the grace). Nil when no group was ever spawned.
    func finish() async -> ProcessGroup.Teardown? {
        let teardown = state.withLock { state -> Task<ProcessGroup.Teardown, Never>? in
            if state.teardown == nil, let group = state.group {
                state.teardown = Self.tearDown(ProcessGroup(id: group), grace: grace, termSentAt: nil, clock: clock)
            }
            return state.teardown
        }
        return await teardown?.value
    }

    /// SIGTERM at once (not when a task gets to run), and the teardown that follows it.
    private func terminate(_ state: inout State) {
        guard state.teardown == nil, let id = state.group else { return }
        let group = ProcessGroup(id: id)
        let termSentAt = clock.now
        group.send(SIGTERM)
        state.teardown = Self.tearDown(group, grace: grace, termSentAt: termSentAt, clock: clock)
    }

    /// In a task of its own, which the run's cancellation does not reach: it must not cut the
    /// grace short. `finish()` always awaits it.
    private static func tearDown(
        _ group: ProcessGroup, grace: Duration, termSentAt: C.Instant?, clock: C
    ) -> Task<ProcessGroup.Teardown, Never> {
        Task { await group.tearDown(grace: grace, termSentAt: termSentAt, clock: clock) }
    }
}
