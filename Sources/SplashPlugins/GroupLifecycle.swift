import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process group of one external plugin run, shared by its body and its cancellation handler.
///
/// Cancellation may come before the group exists (while spawning) or after: whichever of
/// `started(group:)` and `cancel()` comes second sends the SIGTERM, exactly once.
final class GroupLifecycle: Sendable {
    private struct State {
        var group: pid_t?
        var cancelled = false
        var termSentAt: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// The process group id, once the process was spawned.
    var group: pid_t? { state.withLock { $0.group } }

    /// Whether the run was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// When SIGTERM was sent to the group because of cancellation.
    var termSentAt: ContinuousClock.Instant? { state.withLock { $0.termSentAt } }

    /// Records the spawned process group; sends SIGTERM if cancellation came first.
    func started(group: pid_t) {
        state.withLock { state in
            state.group = group
            if state.cancelled {
                Self.terminate(&state)
            }
        }
    }

    /// Records cancellation; sends SIGTERM to the group if it exists.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if state.group != nil {
                Self.terminate(&state)
            }
        }
    }

    private static func terminate(_ state: inout State) {
        guard state.termSentAt == nil, let group = state.group else { return }
        state.termSentAt = .now
        ProcessGroup(id: group).send(SIGTERM)
    }
}
