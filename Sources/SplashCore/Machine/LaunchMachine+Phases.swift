import SplashProtocol

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
        let info: ErrorInfo
        if state.status == .skipped {
            info = ErrorInfo(
                code: .stepSkipped,
                message: "\(label) could not run",
                step: spec.id,
                actions: offeredActions,
                detail: "skipped because \(state.skipReason ?? "a dependency did not succeed")"
            )
        } else {
            let failure = state.failure ?? StepFailure(code: .stepFailed, message: "failed", retryable: false)
            info = ErrorInfo(
                code: failure.code == .network ? .network : .stepFailed,
                message: ErrorInfo.userMessage(for: failure, label: label),
                step: spec.id,
                actions: offeredActions,
                detail: failure.message
            )
        }
        setStage(.error(.failed(info)))
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
        slow = false
        loadingSince = now
        setStage(.loading)
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
        setStage(.dismissing(since: now, destination: decidedDestination))
    }

    mutating func enterFinished(_ destination: Destination, at now: Duration) {
        setStage(.finished(destination))
        emit(.event(.launchFinished(launch: launch, destination: destination, elapsed: now - launchStartedAt)))
    }

    /// Moves to `new`, logging the phase change (if the phase is another) and publishing.
    mutating func setStage(_ new: LaunchStage) {
        let old = phase
        stage = new
        if new.phase != old { emit(.event(.phaseChanged(from: old, to: new.phase))) }
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
        progress = max(progress, min(ProgressEstimator.workFraction(self), ProgressEstimator.cap))
    }
}
