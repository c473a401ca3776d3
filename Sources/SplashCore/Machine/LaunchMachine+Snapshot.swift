public import SplashProtocol

/// The machine as the protocol sees it: the `state` message at an instant.
extension LaunchMachine {
    /// The observable state at `now`.
    public func snapshot(at now: Duration) -> StateMessage {
        var stepViews: [StateMessage.Step] = []
        stepViews.reserveCapacity(steps.count)
        for (index, state) in steps.enumerated() {
            let spec = graph.steps[index]
            let duration = state.startedAt.map { (state.endedAt ?? now) - $0 } ?? .zero
            let reason: String? =
                switch state.status {
                case .failed: state.failure?.message
                case .skipped: state.skipReason
                case .running where state.retryAt != nil: state.failure.map { "retrying after: \($0.message)" }
                default: nil
                }
            stepViews.append(
                StateMessage.Step(
                    id: spec.id, status: state.status, attempt: state.attempt,
                    durationMs: max(0, duration.milliseconds), label: spec.label,
                    critical: spec.critical, reason: reason
                )
            )
        }
        return StateMessage(
            seq: seq, launch: launch, phase: phase, reason: reason, slow: slow, progress: progress,
            message: currentMessage, elapsedMs: max(0, (now - launchStartedAt).milliseconds),
            etaMs: eta.map { max(0, $0.milliseconds) }, steps: stepViews, error: error, destination: destination
        )
    }

    /// The running step's own message or label (first in graph order), or the error's message.
    public var currentMessage: String? {
        switch phase {
        case .error: return error?.message
        case .dismissing, .finished: return nil
        case .loading:
            for index in graph.order where steps[index].status == .running {
                if let message = steps[index].message { return message }
                if let label = graph.steps[index].label { return label }
            }
            return nil
        }
    }
}
