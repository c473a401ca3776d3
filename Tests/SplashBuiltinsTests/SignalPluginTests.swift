import SplashBuiltins
import SplashCore
import SplashPlugins
import Testing
import TestSupport

@Suite("SignalBoard and the signal built-in", .timeLimit(.minutes(10)))
struct SignalPluginTests {
    private func context(step: String) -> StepContext {
        quickActionTestContext(step: step, plugin: "signal", log: LogCapture())
    }

    @Test func completionBeforeWaitingSucceedsAtOnce() async throws {
        let board = SignalBoard()
        board.complete(step: "first-frame")
        let facts = try await SignalPlugin(board: board).run(context(step: "first-frame"))
        #expect(facts == [:])
        #expect(board.waiterCount(step: "first-frame") == 0)
    }

    @Test func completionWhileWaitingWakesTheStep() async throws {
        let board = SignalBoard()
        let plugin = SignalPlugin(board: board)
        let context = context(step: "first-frame")
        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { board.waiterCount(step: "first-frame") == 1 })

        // A completion for another step does not wake it.
        board.complete(step: "other")
        #expect(board.waiterCount(step: "first-frame") == 1)

        board.complete(step: "first-frame")
        let outcome = try #require(await result(of: task))
        #expect(try outcome.get() == [:])
        #expect(board.waiterCount(step: "first-frame") == 0)
    }

    @Test func everyWaiterOfTheStepIsWoken() async throws {
        let board = SignalBoard()
        let first = Task { try await board.wait(step: "s") }
        let second = Task { try await board.wait(step: "s") }
        #expect(await waitUntil { board.waiterCount(step: "s") == 2 })
        board.complete(step: "s")
        #expect(try #require(await result(of: first)).get() == ())
        #expect(try #require(await result(of: second)).get() == ())
    }

    @Test func resetForgetsCompletions() async throws {
        let board = SignalBoard()
        board.complete(step: "first-frame")
        #expect(board.isCompleted(step: "first-frame"))
        board.reset()
        #expect(!board.isCompleted(step: "first-frame"))

        // After the reset the step waits again, until a new completion.
        let task = Task { try await board.wait(step: "first-frame") }
        #expect(await waitUntil { board.waiterCount(step: "first-frame") == 1 })
        board.complete(step: "first-frame")
        #expect(try #require(await result(of: task)).get() == ())
    }

    @Test func cancellationThrowsAndLeavesNoWaiter() async throws {
        let board = SignalBoard()
        let plugin = SignalPlugin(board: board)
        let context = context(step: "first-frame")
        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { board.waiterCount(step: "first-frame") == 1 })

        task.cancel()
        let outcome = try #require(await result(of: task))
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(await waitUntil { board.waiterCount(step: "first-frame") == 0 })
        // A later completion finds nobody to resume (and does not crash on a stale continuation).
        board.complete(step: "first-frame")
        #expect(board.isCompleted(step: "first-frame"))
    }

    @Test func cancelledBeforeWaitingThrows() async throws {
        let board = SignalBoard()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await board.wait(step: "never")
        }
        let outcome = try #require(await result(of: task))
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(board.waiterCount(step: "never") == 0)
    }
}
