/// Phase changes: the hard and soft errors, the user's ways out, dismissing and finishing; and
/// progress, computed when a state is published.
extension LaunchMachine {
    var offeredActions: [ErrorInfo.UserAction] {
        settings.allowOffline ? [.retry, .continueOffline] : [.retry]
    }

    mutating func enterHardError(causedBy index: Int, at now: Duration) {
        stopRunning(markSkipped: nil, at: now)
        let spec = graph.steps[index]
        let state = steps[index]
        let label = spec.label ?? spec.id
        if state.status == .skipped {
            error = ErrorInfo(
                code: ErrorInfo.Code.stepSkipped,
                message: "\(label) could not run",
                step: spec.id,
                actions: offeredActions,
                detail: "skipped because \(state.skipReason ?? "a dependency did not succeed")"
            )
        } else {
            let failure = state.failure ?? StepFailure(code: ErrorInfo.Code.stepFailed, message: "failed", retryable: false)
            error = ErrorInfo(
                code: failure.code == ErrorInfo.Code.network ? ErrorInfo.Code.network : ErrorInfo.Code.stepFailed,
                message: ErrorInfo.userMessage(for: failure, label: label),
                step: spec.id,
                actions: offeredActions,
                detail: failure.message
            )
        }
        setPhase(.error)
        dirty = true
    }

    mutating func restartRound(at now: Duration) {
        stopRunning(markSkipped: nil, at: now)
        for index in steps.indices where steps[index].status != .succeeded {
            let attempt = steps[index].attempt
            steps[index] = StepState()
            steps[index].attempt = attempt
            steps[index].roundBase = attempt
        }
        rebuildBookkeeping()
        error = nil
        slow = false
        timedOut = false
        loadingSince = now
        setPhase(.loading)
        settle(at: now)
    }

    mutating func continueOffline(at now: Duration) {
        stopRunning(markSkipped: "continued offline", at: now)
        for index in steps.indices {
            let state = steps[index]
            let failedCritical = state.status == .failed && graph.steps[index].critical
            if state.status == .pending || failedCritical {
                steps[index].skipReason = "continued offline"
                steps[index].endedAt = steps[index].endedAt ?? now
                setStatus(index, .skipped)
            }
        }
        enterDismissing(at: now)
    }

    mutating func enterDismissing(at now: Duration) {
        var facts: Facts = [:]
        for index in graph.order where steps[index].status == .succeeded {
            facts.merge(steps[index].facts) { _, new in new }
        }
        decided = Destination.decide(from: facts)
        error = nil
        dismissingSince = now
        setPhase(.dismissing)
    }

    mutating func enterFinished(at now: Duration) {
        destination = decided ?? Destination.decide(from: [:])
        setPhase(.finished)
        emit(.event(.launchFinished(launch: launch, destination: destination!, elapsed: now - launchStartedAt)))
    }

    mutating func setPhase(_ new: Phase) {
        guard new != phase else { return }
        emit(.event(.phaseChanged(from: phase, to: new)))
        phase = new
        dirty = true
    }

    /// Progress never decreases within a launch and is 1 only from `dismissing` on: from history
    /// when there is some (it tracks time), else each step by its weight.
    mutating func updateProgress(at now: Duration) {
        if phase == .dismissing || phase == .finished {
            progress = 1
            eta = nil
            return
        }
        if let estimator, estimator.hasHistory {
            let estimate = estimator.estimate(machine: self, at: now)
            eta = estimate.eta
            progress = max(progress, min(estimate.fraction, ProgressEstimator.cap))
            return
        }
        eta = nil
        var done = 0.0
        var total = 0.0
        for (index, state) in steps.enumerated() {
            let weight = index < weights.count ? max(0, weights[index]) : 1
            total += weight
            switch state.status {
            case .succeeded, .failed, .skipped: done += weight
            case .running: done += weight * min(state.fraction, 0.95)
            case .pending: break
            }
        }
        let raw = total > 0 ? min(done / total, 0.99) : 0
        progress = max(progress, raw)
    }
}
