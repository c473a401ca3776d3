import Foundation
import SplashCore
import SplashDaemon
import SplashPlugins
import SplashProtocol
import Testing
import TestSupport

/// The controller keeps time only through its injected clock: these tests never sleep, and every
/// timed transition lands on its exact instant.
@Suite(.timeLimit(.minutes(10))) struct LaunchControllerTests {
    let settings = SplashSettings(
        minDisplay: .seconds(1), slowAfter: .milliseconds(500), timeout: .seconds(10),
        exitAnimation: .milliseconds(300), allowOffline: true
    )

    @Test func timedTransitionsHappenAtTheirInstants() async throws {
        let h = try ControllerHarness([StepSpec(id: "frame", plugin: "signal")], settings: settings)
        _ = await h.next { $0.steps[0].status == .running }
        // The step still runs at slow_after: slow then, to the millisecond.
        h.clock.advance(to: .milliseconds(500))
        let slow = await h.next { $0.slow }
        #expect(slow?.elapsedMs == 500)
        h.clock.advance(to: .milliseconds(600))
        h.board.complete(step: "frame")
        let done = await h.next { $0.steps[0].status == .succeeded }
        #expect(done?.phase == .loading, "min_display holds a fast launch")
        h.clock.advance(to: .milliseconds(1000))
        let dismissing = await h.next { $0.phase == .dismissing }
        #expect(dismissing?.elapsedMs == 1000)
        h.clock.advance(to: .milliseconds(1300))
        let finished = await h.next { $0.phase == .finished }
        #expect(finished?.elapsedMs == 1300)
        #expect(finished?.destination == Destination(screen: .home))
        await h.stop()
    }

    /// Coalesced states are at least `publishInterval` of clock time apart; a phase change is
    /// never held back.
    @Test func coalescedStatesKeepThePublishIntervalAndPhaseChangesDoNot() async throws {
        let h = try ControllerHarness(
            [StepSpec(id: "a", plugin: "signal"), StepSpec(id: "b", plugin: "signal")], settings: settings,
            publishInterval: .milliseconds(16)
        )
        let started = await h.next { $0.steps.allSatisfy { $0.status == .running } }
        #expect(started?.elapsedMs == 0)
        h.board.complete(step: "a")
        // A state went out at 0 ms, so the result waits for 16 ms: the controller arms its timer
        // for that instant (its tick would be at 100 ms).
        while !h.clock.pendingDeadlines.contains(.milliseconds(16)) { await Task.yield() }
        h.clock.advance(to: .milliseconds(16))
        let result = await h.next { $0.steps.contains { $0.status == .succeeded } }
        #expect(result?.elapsedMs == 16)
        #expect(result?.steps.map(\.status) == [.succeeded, .running])
        #expect(result?.seq == (started?.seq ?? 0) + 1)
        h.board.complete(step: "b")
        // min_display ends at 1 s: the phase change goes out at its instant.
        h.clock.advance(to: .milliseconds(1000))
        let dismissing = await h.next { $0.phase == .dismissing }
        #expect(dismissing?.elapsedMs == 1000)
        await h.stop()
    }

    @Test func dismissingFollowsTheLastStepAtOnceWhenMinDisplayHasPassed() async throws {
        let h = try ControllerHarness([StepSpec(id: "frame", plugin: "signal")], settings: settings)
        _ = await h.next { $0.steps[0].status == .running }
        h.clock.advance(to: .milliseconds(1500))
        _ = await h.next { $0.slow }
        h.board.complete(step: "frame")
        let dismissing = await h.next { $0.phase == .dismissing }
        #expect(dismissing?.elapsedMs == 1500)
        await h.stop()
    }

    @Test func softTimeoutThenCompletionMovesOnByItself() async throws {
        let h = try ControllerHarness([StepSpec(id: "frame", plugin: "signal", timeout: .seconds(60))], settings: settings)
        _ = await h.next { $0.steps[0].status == .running }
        h.clock.advance(to: .seconds(10))
        let error = await h.next { $0.phase == .error }
        #expect(error?.error?.code == .timeout)
        #expect(error?.elapsedMs == 10_000)
        h.board.complete(step: "frame")
        let dismissing = await h.next { $0.phase == .dismissing }
        #expect(dismissing?.steps[0].status == .succeeded)
        await h.stop()
    }

    @Test func retriesWaitTheirBackoffOnTheClock() async throws {
        let attempts = AttemptLog()
        let flaky = ScriptedPlugin { context in
            attempts.record(context.run.attempt)
            if context.run.attempt < 3 { throw StepFailure(code: .network, message: "down", retryable: true) }
            return ["ok": true]
        }
        let step = StepSpec(id: "fetch", plugin: "flaky", retry: .init(attempts: 3, backoff: .milliseconds(200)))
        let h = try ControllerHarness([step], settings: settings, plugins: ["flaky": flaky])
        let waiting = await h.next { $0.steps[0].reason != nil }
        #expect(waiting?.steps[0].reason == "retrying after: down")
        #expect(waiting?.steps[0].status == .running)
        h.clock.advance(to: .milliseconds(199))
        h.clock.advance(to: .milliseconds(200))
        let second = await h.next { $0.steps[0].attempt == 2 && $0.steps[0].reason != nil }
        #expect(second?.elapsedMs == 200)
        h.clock.advance(to: .milliseconds(599))
        h.clock.advance(to: .milliseconds(600))
        let third = await h.next { $0.steps[0].status == .succeeded }
        #expect(third?.steps[0].attempt == 3)
        #expect(attempts.values == [1, 2, 3])
        await h.stop()
    }

    @Test func attemptTimeoutCancelsThePluginOnTheClock() async throws {
        let cancelled = AttemptLog()
        let hanging = ScriptedPlugin { context in
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.record(context.run.attempt)
                throw error
            }
            return [:]
        }
        let step = StepSpec(id: "hang", plugin: "hang", critical: false, timeout: .milliseconds(700))
        let h = try ControllerHarness([step], settings: settings, plugins: ["hang": hanging])
        _ = await h.next { $0.steps[0].status == .running }
        h.clock.advance(to: .milliseconds(700))
        let failed = await h.next { $0.steps[0].status == .failed }
        #expect(failed?.steps[0].reason == "no result within 700ms")
        h.clock.advance(to: .seconds(1))
        let dismissing = await h.next { $0.phase == .dismissing }
        #expect(dismissing?.elapsedMs == 1000, "an optional step's failure does not block dismissing")
        await h.stop()
        #expect(cancelled.values == [1])
    }

    @Test func commandsAreRefusedOrAppliedThroughTheController() async throws {
        let h = try ControllerHarness([StepSpec(id: "frame", plugin: "signal")], settings: settings)
        _ = await h.next { $0.steps[0].status == .running }
        let refused = await h.controller.handle(.dismissed)
        #expect(failure(refused) == ProtocolError(code: .invalidTransition, message: "dismissed is only possible in phase dismissing"))
        let unknown = await h.controller.handle(.complete(step: "nope"))
        #expect(failure(unknown)?.code == .unknownStep)
        #expect(failure(await h.controller.handle(.complete(step: "frame"))) == nil)
        h.clock.advance(to: .seconds(1))
        _ = await h.next { $0.phase == .dismissing }
        #expect(failure(await h.controller.handle(.dismissed)) == nil)
        let finished = await h.next { $0.phase == .finished }
        #expect(finished?.launch == "launch-1")
        #expect(failure(await h.controller.handle(.relaunch)) == nil)
        let relaunched = await h.next { $0.phase == .loading }
        #expect(relaunched?.launch == "launch-2")
        #expect(relaunched?.steps[0].status == .running, "a new launch waits for a new completion")
        await h.stop()
    }
}

func failure(_ result: Result<Void, ProtocolError>) -> ProtocolError? {
    if case .failure(let error) = result { return error }
    return nil
}

final class AttemptLog: @unchecked Sendable {
    private var log: [Int] = []
    private let lock = NSLock()
    func record(_ attempt: Int) { lock.withLock { log.append(attempt) } }
    var values: [Int] { lock.withLock { log } }
    var count: Int { values.count }
}
