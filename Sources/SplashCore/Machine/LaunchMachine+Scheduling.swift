import SplashJSON
import SplashProtocol

/// Which step runs when: attempts, retries, timeouts, skips — kept incrementally, so one input
/// costs time in the steps it touches, not in the size of the graph.
extension LaunchMachine {
    /// Changes a step's status and keeps the bookkeeping: counters, the running set, dependants'
    /// unmet counts, and the ready and blocked lists.
    mutating func setStatus(_ index: Int, _ new: StepStatus) {
        let old = steps[index].status
        guard old != new else { return }
        steps[index].status = new
        if old.isTerminal { terminalCount -= 1 }
        if new.isTerminal { terminalCount += 1 }
        if old == .running { running.remove(index) }
        if new == .running { running.insert(index) }
        if graph.steps[index].critical {
            if old == .succeeded { criticalUnsucceeded += 1 }
            if new == .succeeded { criticalUnsucceeded -= 1 }
            if old == .failed || old == .skipped { brokenCritical.remove(index) }
            if new == .failed || new == .skipped { brokenCritical.insert(index) }
        }
        if new == .succeeded {
            for dependant in graph.dependants[index] {
                unmet[dependant] -= 1
                if unmet[dependant] == 0 { ready.append(dependant) }
            }
        } else if old == .succeeded {
            for dependant in graph.dependants[index] { unmet[dependant] += 1 }
        }
        if new == .failed || new == .skipped { blocked.append(index) }
        if new == .pending && unmet[index] == 0 { ready.append(index) }
    }

    /// Recomputes the bookkeeping from the steps (a new launch, a new round).
    mutating func rebuildBookkeeping() {
        terminalCount = 0
        criticalUnsucceeded = 0
        brokenCritical = []
        running = []
        ready = []
        blocked = []
        indexByToken = [:]
        for (index, state) in steps.enumerated() {
            let critical = graph.steps[index].critical
            if state.status.isTerminal { terminalCount += 1 }
            if critical && state.status != .succeeded { criticalUnsucceeded += 1 }
            if critical && (state.status == .failed || state.status == .skipped) { brokenCritical.insert(index) }
            if state.status == .running { running.insert(index) }
            if state.status == .failed || state.status == .skipped { blocked.append(index) }
            unmet[index] = graph.dependencies[index].reduce(0) { $0 + (steps[$1].status == .succeeded ? 0 : 1) }
            if state.status == .pending && unmet[index] == 0 { ready.append(index) }
            if state.status == .running { indexByToken[state.token] = index }
        }
    }

    func runningIndex(token: UInt64) -> Int? {
        guard let index = indexByToken[token], steps[index].token == token,
            steps[index].status == .running, steps[index].retryAt == nil
        else { return nil }
        return index
    }

    /// The running steps in graph order (so simultaneous events come out in a stable order).
    var runningInOrder: [Int] { running.sorted { orderPosition[$0] < orderPosition[$1] } }

    mutating func fire(at now: Duration) {
        if let tickInterval, phase == .loading, wantsTicks, now >= lastChangeAt + tickInterval {
            lastChangeAt = now
            dirty = true
        }
        for index in runningInOrder {
            if let retryAt = steps[index].retryAt {
                if retryAt <= now && workMayRun { beginAttempt(index, at: now) }
            } else if let deadline = steps[index].attemptDeadline, deadline <= now {
                attemptFailed(index, .attemptTimedOut(after: graph.steps[index].timeout), at: now, cancel: true)
            }
        }
        if phase == .loading && !slow && isCriticalWorkPending && now >= loadingSince + settings.slowAfter {
            slow = true
            dirty = true
        }
        if phase == .loading && !(held && isWorkComplete) && now >= loadingSince + settings.timeout {
            let holdingUp = runningInOrder.first { graph.steps[$0].critical }
                ?? graph.order.first { !steps[$0].status.isTerminal }
            let info = ErrorInfo(
                code: .timeout,
                message: ErrorInfo.userMessage(for: .timeout) ?? "",
                step: holdingUp.map { graph.steps[$0].id },
                actions: offeredActions
            )
            setStage(.error(.timedOut(info)))
        }
        if case .dismissing(let since, let destination) = stage, now >= since + settings.exitAnimation {
            enterFinished(destination, at: now)
        }
    }

    /// Brings the graph up to date after any input: skips, a hard error, new attempts, dismissing.
    mutating func settle(at now: Duration) {
        while let source = blocked.popLast() {
            for dependant in graph.dependants[source] where steps[dependant].status == .pending {
                let reason = "\(graph.steps[source].id) \(steps[source].status.rawValue)"
                steps[dependant].skipReason = reason
                steps[dependant].endedAt = now
                setStatus(dependant, .skipped)
                emit(.event(.stepSkipped(step: graph.steps[dependant].id, reason: reason)))
                dirty = true
            }
        }
        guard workMayRun else { return }
        if let broken = brokenCritical.min(by: { orderPosition[$0] < orderPosition[$1] }) {
            enterHardError(causedBy: broken, at: now)
            return
        }
        if !ready.isEmpty {
            let candidates = Set(ready).sorted { orderPosition[$0] < orderPosition[$1] }
            ready.removeAll(keepingCapacity: true)
            for index in candidates where steps[index].status == .pending && unmet[index] == 0 {
                beginAttempt(index, at: now)
            }
        }
        if isWorkComplete && !held && now >= launchStartedAt + settings.minDisplay {
            enterDismissing(at: now)
        }
    }

    mutating func beginAttempt(_ index: Int, at now: Duration) {
        let spec = graph.steps[index]
        nextToken += 1
        indexByToken[steps[index].token] = nil
        indexByToken[nextToken] = index
        steps[index].attempt += 1
        steps[index].token = nextToken
        steps[index].retryAt = nil
        steps[index].attemptDeadline = now + spec.timeout
        steps[index].fraction = 0
        steps[index].message = nil
        if steps[index].startedAt == nil { steps[index].startedAt = now }
        setStatus(index, .running)
        var dependencyFacts: [String: Facts] = [:]
        for dep in graph.dependencies[index] { dependencyFacts[graph.steps[dep].id] = steps[dep].facts }
        let run = StepRun(
            step: spec,
            launch: launch,
            attempt: steps[index].attempt,
            token: nextToken,
            dependencyFacts: dependencyFacts,
            reason: reason
        )
        emit(.start(run))
        emit(.event(.stepStarted(step: spec.id, attempt: steps[index].attempt)))
        dirty = true
    }

    mutating func attemptFailed(_ index: Int, _ failure: StepFailure, at now: Duration, cancel: Bool) {
        let spec = graph.steps[index]
        if cancel { emit(.cancel(step: spec.id, token: steps[index].token)) }
        let tries = steps[index].attempt - steps[index].roundBase
        let duration = now - (steps[index].startedAt ?? now)
        steps[index].failure = failure
        steps[index].attemptDeadline = nil
        var retryIn: Duration?
        if failure.retryable && tries < spec.retry.attempts {
            let wait = spec.retry.backoff(afterAttempt: tries)
            steps[index].retryAt = now + wait
            retryIn = wait
        } else {
            steps[index].endedAt = now
            setStatus(index, .failed)
        }
        emit(
            .event(
                .stepFailed(
                    step: spec.id, attempt: steps[index].attempt, failure: failure, duration: duration, retryIn: retryIn
                )
            )
        )
        dirty = true
    }

    /// Stops every running attempt; each such step goes back to `pending` (or `skipped`).
    mutating func stopRunning(markSkipped reason: String?, at now: Duration) {
        for index in runningInOrder {
            if steps[index].retryAt == nil {
                emit(.cancel(step: graph.steps[index].id, token: steps[index].token))
                emit(.event(.stepCancelled(step: graph.steps[index].id, attempt: steps[index].attempt)))
            }
            steps[index].retryAt = nil
            steps[index].attemptDeadline = nil
            if let reason {
                steps[index].skipReason = reason
                steps[index].endedAt = now
                setStatus(index, .skipped)
            } else {
                setStatus(index, .pending)
            }
            dirty = true
        }
    }
}
