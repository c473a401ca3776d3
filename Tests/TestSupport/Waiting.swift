import Foundation
import Synchronization

/// The default bound on how long a test waits for an event: it ends a hang, it does not time the
/// code.
///
/// Swift Testing starts every test of the run at once, and their tasks share the cooperative
/// pool (two threads here) with the work they wait for: a wait also counts the time the other
/// tests run. A plugin test that takes a fraction of a second alone took 10 s of the whole suite's
/// 90 s quiet, and 31 s beside eight CPU hogs; in README's test command, beside a build, a 10 s
/// bound failed it on CI (its plugin run had not returned). So the bound is two minutes.
public let eventDeadline: Duration = .seconds(120)

/// How much longer every bounded wait may take: `SPLASHD_TEST_TIME_SCALE` (a whole number, default
/// 1). `make sanitize` sets 10: under ThreadSanitizer the same events take many times longer, and
/// a bound is there to end a hang, not to time the code.
public let waitScale: Int = {
    guard let text = getenv("SPLASHD_TEST_TIME_SCALE").map({ String(cString: $0) }), let scale = Int(text), scale > 0 else {
        return 1
    }
    return scale
}()

/// Polls `condition` every 10 ms until it holds or `timeout` passes; whether it held.
///
/// Runs on its caller's actor (`nonisolated(nonsending)`), so a test on the main actor can poll
/// its own state.
nonisolated(nonsending) public func waitUntil(
    timeout: Duration = eventDeadline,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout * waitScale)
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// The result of `task`, or nil (after cancelling it) if it does not finish within `timeout`.
///
/// Keeps a hanging task (a plugin run, a request) from hanging the test run: the test fails instead.
public func result<Success: Sendable>(
    of task: Task<Success, any Error>,
    within timeout: Duration = eventDeadline
) async -> Result<Success, any Error>? {
    let slot = Mutex<Result<Success, any Error>?>(nil)
    let finished = Mutex(false)
    let watcher = Task {
        let outcome = await task.result
        slot.withLock { $0 = outcome }
        finished.withLock { $0 = true }
    }
    _ = watcher
    guard await waitUntil(timeout: timeout, { finished.withLock { $0 } }) else {
        task.cancel()
        return nil
    }
    return slot.withLock { $0 }
}
