import SplashProtocol
import Synchronization
import SplashBuiltins
import SplashCore
import SplashDaemon
import SplashPlugins
import Testing
import TestSupport

/// A signal board that runs a hook when the controller resets it (at a launch's start), before or
/// after the reset itself: where the old controller suspended, so other commands could slip in.
final class ResetHookBoard: SignalCompleting {
    enum When: Sendable { case before, after }
    let board: SignalBoard
    private let hook = Mutex<(When, @Sendable () -> Void)?>(nil)

    init(_ board: SignalBoard) { self.board = board }

    /// Runs `body` once, at the next reset.
    func atNextReset(_ when: When, _ body: @escaping @Sendable () -> Void) { hook.withLock { $0 = (when, body) } }

    func complete(step: String) { board.complete(step: step) }

    func reset() {
        let armed = hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
        if let armed, armed.0 == .before { armed.1() }
        board.reset()
        if let armed, armed.0 == .after { armed.1() }
    }
}

/// Two `relaunch`es and a `complete` for the new launch, interleaved at every point where the
/// controller used to suspend during a relaunch (before and between its resets, and after it
/// replied): the second relaunch is refused and the `complete` is never lost.
@Suite(.timeLimit(.minutes(10))) struct RelaunchRaceTests {
    enum Point: String, CaseIterable, Sendable {
        /// Both queued right behind the first relaunch, before the loop applied it.
        case queuedBehind
        /// Sent from inside the first relaunch's turn, before the board was reset.
        case beforeReset
        /// Sent from inside the first relaunch's turn, after the board was reset.
        case afterReset
        /// Sent once the first relaunch has replied.
        case afterReply
    }

    @Test(arguments: Point.allCases, [true, false])
    func aCompleteForTheNewLaunchSurvivesASecondRelaunch(at point: Point, completeFirst: Bool) async throws {
        let settings = SplashSettings(minDisplay: .zero, slowAfter: .seconds(5), timeout: .seconds(60), exitAnimation: .seconds(1))
        // "frame" runs only after "gate": its completion has to wait on the board, where a reset
        // would wipe it.
        let steps = [StepSpec(id: "gate", plugin: "signal"), StepSpec(id: "frame", plugin: "signal", after: ["gate"])]
        let board = SignalBoard()
        let hooked = ResetHookBoard(board)
        let h = try ControllerHarness(steps, settings: settings, board: board, completing: hooked)
        board.complete(step: "gate")
        board.complete(step: "frame")
        _ = await h.next { $0.phase == .dismissing }
        #expect(failure(await h.controller.handle(.dismissed)) == nil)
        _ = await h.next { $0.phase == .finished }

        let replies = Replies()
        let controller = h.controller
        @Sendable func sendTheOthers() {
            let second: (String, Request.Command) = ("second relaunch", .relaunch)
            let complete: (String, Request.Command) = ("complete", .complete(step: "frame"))
            for (name, command) in completeFirst ? [complete, second] : [second, complete] {
                controller.send(command) { replies.record(name, $0) }
            }
        }
        switch point {
        case .queuedBehind:
            controller.send(.relaunch) { replies.record("first relaunch", $0) }
            sendTheOthers()
        case .beforeReset, .afterReset:
            hooked.atNextReset(point == .beforeReset ? .before : .after, sendTheOthers)
            controller.send(.relaunch) { replies.record("first relaunch", $0) }
        case .afterReply:
            #expect(failure(await controller.handle(.relaunch)) == nil)
            replies.record("first relaunch", .success(()))
            sendTheOthers()
        }
        // Every reply is in once a heartbeat queued behind them is answered.
        await controller.heartbeat()
        #expect(replies.succeeded("first relaunch"))
        #expect(replies.outcome("second relaunch").flatMap(failure)?.code == .invalidTransition)
        #expect(replies.succeeded("complete"))
        // Whenever it was sent, the complete was applied after the first relaunch's whole turn.
        #expect(board.isCompleted(step: "frame"), "the complete for the new launch was wiped")
        board.complete(step: "gate")
        let dismissing = await h.next { $0.launch == "launch-2" && $0.phase == .dismissing }
        #expect(dismissing?.steps.map(\.status) == [.succeeded, .succeeded])
        await h.stop()
    }
}

/// Replies by command, in the order they came.
final class Replies: Sendable {
    private let replies = Mutex<[(String, Result<Void, ProtocolError>)]>([])
    func record(_ name: String, _ result: Result<Void, ProtocolError>) { replies.withLock { $0.append((name, result)) } }
    func outcome(_ name: String) -> Result<Void, ProtocolError>? { replies.withLock { $0.first { $0.0 == name }?.1 } }
    func succeeded(_ name: String) -> Bool {
        guard case .success? = outcome(name) else { return false }
        return true
    }
}
