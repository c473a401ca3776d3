import SplashCore
public import SplashProtocol

/// Waits until the splash reaches a phase: the logic behind `splashctl wait`.
///
/// `dismissing` is also reached by `finished` (a subscriber that lags may only see the later
/// snapshot, and `finished` always follows `dismissing`); every other phase must be seen as such.
public struct PhaseWaiter: Sendable {
    /// What a wait ended with, short of an error.
    public enum Outcome: Sendable, Equatable {
        /// The phase was reached; the state that showed it.
        case reached(StateMessage)
        /// The time limit passed; the last state seen, if any.
        case timedOut(lastSeen: StateMessage?)
    }

    /// The phase to wait for.
    public var target: Phase
    /// The limit for the whole wait; nil waits forever.
    public var timeout: Duration?

    public init(_ target: Phase, timeout: Duration? = nil) {
        self.target = target
        self.timeout = timeout
    }

    /// Whether a state in `phase` satisfies the wait.
    public func accepts(_ phase: Phase) -> Bool {
        phase == target || (target == .dismissing && phase == .finished)
    }

    /// Subscribes on `connection` and returns once the phase is reached (at once if it already is).
    ///
    /// - Throws: `connectionClosed` if the daemon goes away, other `ClientError`s as they come.
    public func run(on connection: SplashConnection) throws(ClientError) -> Outcome {
        var lastSeen: StateMessage?
        do {
            let state = try connection.follow(timeout: timeout) { state, _ in
                lastSeen = state
                return !accepts(state.phase)
            }
            return .reached(state)
        } catch .timedOut {
            return .timedOut(lastSeen: lastSeen)
        }
    }

    /// What to tell the user when the wait timed out.
    public func timeoutMessage(lastSeen: StateMessage?) -> String {
        let limit = timeout.map { " after \(DurationFormat.format($0))" } ?? ""
        let still = lastSeen.map { " (phase is \($0.phase.rawValue))" } ?? ""
        return "timed out\(limit) waiting for phase \(target.rawValue)\(still)"
    }
}
