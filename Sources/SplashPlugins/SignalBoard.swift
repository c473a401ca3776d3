/// Completions sent by clients for `signal` steps ("the kiosk app shows its first frame").
///
/// A completion is kept until `reset()`, so one that arrives before its step starts waiting
/// still counts: that step then succeeds at once.
public actor SignalBoard {
    private var completed: Set<String> = []
    private var waiters: [String: [Int: CheckedContinuation<Void, any Error>]] = [:]
    private var nextWaiterID = 0

    /// Creates an empty board.
    public init() {}

    /// Marks `step` complete and wakes every attempt waiting for it.
    public func complete(step: String) {
        completed.insert(step)
        guard let stepWaiters = waiters.removeValue(forKey: step) else { return }
        for continuation in stepWaiters.values {
            continuation.resume()
        }
    }

    /// Forgets all completions (a new launch begins). Attempts already waiting keep waiting.
    public func reset() {
        completed.removeAll()
    }

    /// Whether `step` was completed since the last reset.
    public func isCompleted(step: String) -> Bool {
        completed.contains(step)
    }

    /// The number of attempts waiting for `step`.
    public func waiterCount(step: String) -> Int {
        waiters[step]?.count ?? 0
    }

    /// Returns once `step` is complete; throws `CancellationError` if the task is cancelled first.
    public func wait(step: String) async throws {
        if completed.contains(step) { return }
        try Task.checkCancellation()
        let id = nextWaiterID
        nextWaiterID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Runs on this actor before the task suspends, so `cancelWaiter` comes after it.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[step, default: [:]][id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(step: step, id: id) }
        }
    }

    private func cancelWaiter(step: String, id: Int) {
        guard let continuation = waiters[step]?.removeValue(forKey: id) else { return }
        if waiters[step]?.isEmpty == true {
            waiters[step] = nil
        }
        continuation.resume(throwing: CancellationError())
    }
}
