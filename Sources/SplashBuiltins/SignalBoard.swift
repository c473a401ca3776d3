import Synchronization

/// Completions sent by clients for `signal` steps ("the kiosk app shows its first frame").
///
/// A completion is kept until `reset()`, so one that arrives before its step starts waiting
/// still counts: that step then succeeds at once. Completing and resetting are synchronous, so
/// the launch controller does both inside one turn of its loop, in the order its inputs came.
public final class SignalBoard: Sendable {
    private struct State {
        var completed: Set<String> = []
        var waiters: [String: [Int: CheckedContinuation<Void, any Error>]] = [:]
        var nextWaiterID = 0
    }

    private let state = Mutex(State())

    /// Creates an empty board.
    public init() {}

    /// Marks `step` complete and wakes every attempt waiting for it.
    public func complete(step: String) {
        let woken = state.withLock { state in
            state.completed.insert(step)
            return state.waiters.removeValue(forKey: step)
        }
        for continuation in (woken ?? [:]).values { continuation.resume() }
    }

    /// Forgets all completions (a new launch begins). Attempts already waiting keep waiting.
    public func reset() {
        state.withLock { $0.completed.removeAll() }
    }

    /// Whether `step` was completed since the last reset.
    public func isCompleted(step: String) -> Bool {
        state.withLock { $0.completed.contains(step) }
    }

    /// The number of attempts waiting for `step`.
    public func waiterCount(step: String) -> Int {
        state.withLock { $0.waiters[step]?.count ?? 0 }
    }

    /// Returns once `step` is complete; throws `CancellationError` if the task is cancelled first.
    public func wait(step: String) async throws {
        let id: Int? = state.withLock { state in
            guard !state.completed.contains(step) else { return nil }
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // A completion between the check above and now.
                    if state.completed.contains(step) { return .success(()) }
                    state.waiters[step, default: [:]][id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancelWaiter(step: step, id: id)
        }
    }

    private func cancelWaiter(step: String, id: Int) {
        let continuation = state.withLock { state in
            let found = state.waiters[step]?.removeValue(forKey: id)
            if state.waiters[step]?.isEmpty == true { state.waiters[step] = nil }
            return found
        }
        continuation?.resume(throwing: CancellationError())
    }
}
