import SplashCore
public import SplashJSON
public import SplashPlugins

/// The `signal` built-in: succeeds once a client sends `complete` for the step's id.
///
/// Typical use: the kiosk app reports its first frame, and the splash may go. A completion
/// that arrived before the attempt started counts. It takes no options: a step that has some
/// fails for good (`bad-options`). Facts: `{}`.
public struct SignalPlugin: StepPlugin {
    /// The board the socket server posts completions to.
    public let board: SignalBoard

    /// Creates the plugin reading completions from `board`.
    public init(board: SignalBoard) {
        self.board = board
    }

    /// Waits for the step's completion; throws `CancellationError` when cancelled first.
    public func run(_ context: StepContext) async throws -> Facts {
        _ = try context.run.step.builtinOptions(for: .signal)
        let step = context.run.step.id
        context.logger.debug("waiting for a completion signal", metadata: ["step": "\(step)"])
        try await board.wait(step: step)
        return [:]
    }
}
