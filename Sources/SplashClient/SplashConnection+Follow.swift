import SplashCore
public import SplashProtocol

extension SplashConnection {
    /// Subscribes and hands every state (with its raw line) to `body` until `body` returns false.
    ///
    /// The first state is the current one, sent at once by the daemon. Events and other messages
    /// without an id are skipped.
    ///
    /// - Parameter timeout: the limit for the whole call; nil follows forever.
    /// - Returns: the state for which `body` returned false.
    /// - Throws: `timedOut` at the limit, `connectionClosed` if the daemon goes away,
    ///   `rejected` if it refuses the subscription.
    @discardableResult
    public func follow(
        timeout: Duration? = nil, _ body: (StateMessage, [UInt8]) -> Bool
    ) throws(ClientError) -> StateMessage {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let replyTimeout = timeout.map { min($0, self.timeout) } ?? self.timeout
        switch try request(.subscribe, timeout: replyTimeout) {
        case .ok:
            // States queued before the reply are older than the one the daemon sends right after
            // it (the current state): a follow starts from that one.
            dropQueuedStates()
        case .error(let error): throw .rejected(error)
        default: throw .invalidMessage("unexpected reply to subscribe")
        }
        while true {
            let next = try nextLine(deadline: deadline)
            switch next.message {
            case .state(let state)?:
                if !body(state, next.line) { return state }
            case nil:
                throw .invalidMessage("not a protocol message: \(Self.excerpt(next.line))")
            default:
                continue
            }
        }
    }

    /// Follows the splash until `finished`, emitting one line per state change.
    ///
    /// Readable lines come from `StatusRenderer.watchLine(_:)`; a line equal to the previous one
    /// is not repeated. With `json`, every state line is emitted exactly as received.
    ///
    /// - Returns: the `finished` state.
    @discardableResult
    public func watch(json: Bool, emit: (String) -> Void) throws(ClientError) -> StateMessage {
        var previous: String?
        return try follow { state, line in
            let text = json ? String(decoding: line, as: UTF8.self) : StatusRenderer.watchLine(state)
            if json || text != previous { emit(text) }
            previous = text
            return state.phase != .finished
        }
    }
}
