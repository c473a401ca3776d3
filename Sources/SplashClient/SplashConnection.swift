import SplashCore
import SplashJSON
public import SplashProtocol

/// A blocking client connection to splashd's Unix socket.
///
/// Opening one connects and reads the server's `hello`. Use it from one thread at a time.
/// `request(_:timeout:)` matches replies by id and keeps any other message that arrives in the
/// meantime (subscription states, events) queued for `receive(timeout:)`, in order.
public final class SplashConnection {
    /// The socket path this connection was opened on.
    public let path: String
    /// The daemon's version, from its `hello`.
    public let serverVersion: String
    /// The protocol version the daemon speaks, from its `hello`.
    public let serverProtocol: Int
    /// How long connecting, reading `hello` and each `send` may take.
    public let timeout: Duration

    private let stream: UnixStream
    /// Lines read past while waiting for a reply; handed out first by `receive`.
    private var readAhead: [(line: [UInt8], message: ServerMessage?)] = []
    private var lastID = 0

    /// Connects to the socket at `path` and reads the daemon's `hello`.
    ///
    /// A daemon serving its maximum of clients answers `busy` instead: `rejected` with that error.
    ///
    /// - Parameters:
    ///   - timeout: the limit for connecting plus `hello`, and for each later `send`.
    ///   - maxLineBytes: longer lines from the daemon are protocol errors (`invalidMessage`).
    public init(
        path: String, timeout: Duration = .seconds(5), maxLineBytes: Int = SocketDefaults.maxLineBytes
    ) throws(ClientError) {
        let deadline = ContinuousClock.now + timeout
        let stream = try UnixStream.connect(path: path, deadline: deadline, maxLineBytes: maxLineBytes)
        let line = try stream.readLine(deadline: deadline)
        let proto: Int
        let version: String
        switch ServerMessage.decode(line) {
        case .hello(let helloProtocol, let helloVersion)?:
            (proto, version) = (helloProtocol, helloVersion)
        case .error(let error)?:
            // Instead of hello: `busy`, the daemon serves its maximum of clients.
            throw .rejected(error)
        default:
            throw .invalidMessage("expected hello, got \(Self.excerpt(line))")
        }
        self.path = path
        self.timeout = timeout
        self.stream = stream
        self.serverProtocol = proto
        self.serverVersion = version
    }

    deinit { stream.close() }

    /// The socket's descriptor, for a caller that waits on it beside its own (poll(2)), e.g. a
    /// renderer that also reads input devices. Read it only through `receive(timeout:)`, and call
    /// that first while `hasBufferedInput` is true (a buffered line does not make it readable).
    public var descriptor: Int32 { stream.descriptor }

    /// Whether something already received is waiting to be handed out: a message read ahead, or
    /// bytes of a line.
    public var hasBufferedInput: Bool { !readAhead.isEmpty || stream.pendingCount > 0 }

    /// Sends one request line.
    public func send(_ request: Request) throws(ClientError) {
        try sendRaw(Array((request.encoded() + "\n").utf8))
    }

    /// Sends bytes as they are (no `\n` is added): for tests of garbage and oversized lines.
    public func sendRaw(_ bytes: [UInt8]) throws(ClientError) {
        try stream.write(bytes, deadline: ContinuousClock.now + timeout)
    }

    /// The next line from the daemon, without its `\n` (queued lines first).
    ///
    /// - Parameter timeout: how long to wait; nil waits forever.
    public func receiveLine(timeout: Duration?) throws(ClientError) -> [UInt8] {
        try nextLine(deadline: timeout.map { ContinuousClock.now + $0 }).line
    }

    /// The next message from the daemon (queued messages first).
    ///
    /// - Parameter timeout: how long to wait; nil waits forever.
    /// - Throws: `invalidMessage` for a line that is not a message of the protocol.
    public func receive(timeout: Duration?) throws(ClientError) -> ServerMessage {
        let next = try nextLine(deadline: timeout.map { ContinuousClock.now + $0 })
        guard let message = next.message else {
            throw .invalidMessage("not a protocol message: \(Self.excerpt(next.line))")
        }
        return message
    }

    /// The newest state among the lines that have arrived (those queued, and what can be read
    /// now without waiting, at most `maxLines` lines), or nil when none did. Only that state is
    /// decoded: states are snapshots, so a renderer that fell behind skips the older ones at the
    /// cost of finding their ends (10,000 states a second cost a renderer under emulation a
    /// parse each). Other messages (replies, events) are skipped.
    ///
    /// - Throws: `invalidMessage` when the newest state line is not a state of the protocol.
    public func latestState(maxLines: Int = 4096) throws(ClientError) -> StateMessage? {
        var newest: [UInt8]?
        for entry in readAhead {
            if case .state? = entry.message { newest = entry.line }
        }
        readAhead.removeAll()
        let now = ContinuousClock.now
        for _ in 0..<maxLines {
            let line: [UInt8]
            do {
                line = try stream.readLine(deadline: now)
            } catch .timedOut {
                break
            }
            if line.starts(with: Self.statePrefix) {
                newest = line
            } else if !line.starts(with: Self.typePrefix), case .state? = ServerMessage.decode(line) {
                newest = line
            }
        }
        guard let newest else { return nil }
        guard case .state(let state)? = ServerMessage.decode(newest) else {
            throw .invalidMessage("not a protocol message: \(Self.excerpt(newest))")
        }
        return state
    }

    /// How every state line begins (the daemon writes `type` first), and every message.
    private static let statePrefix = Array(#"{"type":"state""#.utf8)
    private static let typePrefix = Array(#"{"type":""#.utf8)

    /// Sends `command` with a fresh numeric id and returns the reply carrying that id.
    ///
    /// The reply is `ok`, `error` or (for `state`) `state`. An `error` without any id also counts
    /// as the reply (the daemon could not read the request's id). Other messages arriving first
    /// stay queued for `receive(timeout:)`.
    public func request(_ command: Request.Command, timeout: Duration = .seconds(5)) throws(ClientError) -> ServerMessage {
        lastID += 1
        let id = JSONValue.number(Double(lastID))
        try send(Request(command, id: id))
        let deadline = ContinuousClock.now + timeout
        while true {
            let line = try stream.readLine(deadline: deadline)
            let message = ServerMessage.decode(line)
            if let message, Self.isReply(message, to: id) { return message }
            readAhead.append((line, message))
        }
    }

    /// Closes the socket; later calls throw `connectionClosed`.
    public func close() {
        stream.close()
    }

    /// A queued line if any, else the next one from the socket.
    func nextLine(deadline: ContinuousClock.Instant?) throws(ClientError) -> (line: [UInt8], message: ServerMessage?) {
        if !readAhead.isEmpty { return readAhead.removeFirst() }
        let line = try stream.readLine(deadline: deadline)
        return (line, ServerMessage.decode(line))
    }

    /// Forgets the state messages read ahead (a newer one follows); keeps everything else.
    func dropQueuedStates() {
        readAhead.removeAll { entry in
            if case .state? = entry.message { return true }
            return false
        }
    }

    private static func isReply(_ message: ServerMessage, to id: JSONValue) -> Bool {
        switch message {
        case .ok(let replyID): replyID == id
        case .error(let error): error.id == id || error.id == nil
        case .state(let state): state.id == id
        case .result(let replyID, _, _, _): replyID == id
        case .hello, .event: false
        }
    }

    /// The start of a line, for error messages.
    static func excerpt(_ line: [UInt8]) -> String {
        let text = String(decoding: line.prefix(120), as: UTF8.self)
        return line.count > 120 ? "\"\(text)…\"" : "\"\(text)\""
    }
}
