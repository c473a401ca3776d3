import SplashLines
import Logging
import NIOCore
import NIOEmbedded
import SplashCore
@testable import SplashDaemon
import SplashProtocol
import Testing

/// One connection's handler on an `EmbeddedChannel`, with the decoder in front of it as the socket
/// server sets them up: writability, partial reads and over-long lines without a socket.
///
/// The tests are synchronous: an embedded channel lives on the thread that made it.
@Suite struct ConnectionHandlerTests {
    /// A connected channel with the server's pipeline, and the broadcaster its subscribers hear.
    struct Connection {
        let channel = EmbeddedChannel()
        let broadcaster = StateBroadcaster()

        init() throws {
            var logger = Logger(label: "splashd.tests") { _ in SwiftLogNoOpLogHandler() }
            logger.logLevel = .critical
            let handlers: [any ChannelHandler] = [
                ByteToMessageHandler(LineFrameDecoder(maxLength: SocketDefaults.maxLineBytes)),
                ConnectionHandler(
                    commands: SocketServerTests.NoCommands(), broadcaster: broadcaster,
                    access: AccessPolicy(controlGID: nil), peer: nil, logger: logger
                ),
            ]
            try channel.pipeline.syncOperations.addHandlers(handlers)
            try channel.connect(to: SocketAddress(unixDomainSocketPath: "/run/splashd/splashd.sock")).wait()
        }

        /// Sends `text` as one read from the socket.
        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
        }

        /// Publishes a state with `seq` and runs what that queued on the connection's loop.
        func publish(seq: UInt64, slow: Bool = false, elapsedMs: Int64 = 0, progress: Double = 0.5, stepStatus: StepStatus = .running) {
            broadcaster.publish(StateMessage(
                seq: seq, launch: "L1", phase: .loading, slow: slow, progress: progress, message: nil, elapsedMs: elapsedMs,
                steps: [.init(id: "auth", status: stepStatus, attempt: 1, durationMs: elapsedMs)], error: nil, destination: nil
            ))
            channel.embeddedEventLoop.run()
        }

        /// Tells the handler the socket's send buffer filled up (false) or drained (true).
        func setWritable(_ writable: Bool) {
            channel.isWritable = writable
            channel.pipeline.fireChannelWritabilityChanged()
        }

        /// Every message written to the client since the last call, in order.
        func written() throws -> [ServerMessage] {
            var bytes: [UInt8] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                bytes += buffer.readableBytesView
            }
            return try bytes.split(separator: UInt8(ascii: "\n")).map { line in
                try #require(ServerMessage.decode(line), "not a server message: \(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    static func seq(_ message: ServerMessage) -> UInt64? {
        guard case .state(let state) = message else { return nil }
        return state.seq
    }

    @Test func aSubscriberThatCannotTakeMoreGetsOnlyTheNewestStateAndEveryReply() throws {
        let connection = try Connection()
        try connection.send(#"{"cmd":"subscribe","id":1}"# + "\n")
        connection.publish(seq: 1)
        let first = try connection.written()
        #expect(first.count == 3)
        #expect(first.first.map { if case .hello = $0 { true } else { false } } == true)
        #expect(first.dropFirst().first == .ok(id: 1))
        #expect(first.last.flatMap(Self.seq) == 1)

        connection.setWritable(false)
        connection.publish(seq: 2)
        connection.publish(seq: 3)
        connection.broadcaster.broadcast(event: .event(name: "action", fields: ["name": "feedback"]))
        connection.channel.embeddedEventLoop.run()
        try connection.send(#"{"cmd":"ping","id":2}"# + "\n")
        connection.publish(seq: 4)
        #expect(try connection.written().isEmpty, "nothing is written while the client does not read")

        connection.setWritable(true)
        let after = try connection.written()
        #expect(after.count == 3, "\(after)")
        #expect(after.first == .event(name: "action", fields: ["name": "feedback"]))
        #expect(after.compactMap(Self.seq) == [4], "states 2 and 3 were dropped for the newest")
        #expect(after.last == .ok(id: 2), "the reply waited, it was not lost")
        _ = try connection.channel.finish(acceptAlreadyClosed: true)
    }

    /// `{"cmd":"subscribe","ticks":false}`: the states that differ only in what time moves
    /// (elapsed_ms, the steps' duration_ms, progress) are not sent; every other change is, and a
    /// plain subscriber gets them all.
    @Test func aSubscriberWithoutTicksIsSentOnlyWhatTimeAloneDidNotChange() throws {
        let quiet = try Connection(), plain = try Connection()
        try quiet.send(#"{"cmd":"subscribe","ticks":false,"id":1}"# + "\n")
        try plain.send(#"{"cmd":"subscribe","id":1}"# + "\n")
        for connection in [quiet, plain] {
            connection.publish(seq: 1, elapsedMs: 100)
            connection.publish(seq: 2, elapsedMs: 200, progress: 0.55)
            connection.publish(seq: 3, elapsedMs: 300, progress: 0.6)
            connection.publish(seq: 4, slow: true, elapsedMs: 400, progress: 0.6)
            connection.publish(seq: 5, slow: true, elapsedMs: 500, progress: 0.6)
            connection.publish(seq: 6, slow: true, elapsedMs: 600, progress: 1, stepStatus: .succeeded)
        }
        #expect(try quiet.written().compactMap(Self.seq) == [1, 4, 6], "the first, slow, the step's result")
        #expect(try plain.written().compactMap(Self.seq) == [1, 2, 3, 4, 5, 6])
        // A state held back while the client does not read is still sent once it does.
        quiet.setWritable(false)
        quiet.publish(seq: 7, slow: false, elapsedMs: 700, progress: 1, stepStatus: .succeeded)
        #expect(try quiet.written().isEmpty)
        quiet.setWritable(true)
        #expect(try quiet.written().compactMap(Self.seq) == [7])
        for connection in [quiet, plain] { _ = try connection.channel.finish(acceptAlreadyClosed: true) }
    }

    /// An update's end is never replaced unseen: a subscriber that does not keep up gets it, then
    /// the newest state after it (issue 48: "Restarting…" may otherwise never show).
    @Test func aSubscriberThatCannotTakeMoreStillGetsAnUpdatesEnd() throws {
        let connection = try Connection()
        try connection.send(#"{"cmd":"subscribe","id":1}"# + "\n")
        func publish(_ seq: UInt64, _ update: UpdateStatus) {
            var state = StateMessage(seq: seq, launch: "L1", phase: .loading, slow: false, progress: 0.5, message: nil, elapsedMs: 0,
                                     steps: [], error: nil, destination: nil)
            state.mode = .update
            state.update = update
            connection.broadcaster.publish(state)
            connection.channel.embeddedEventLoop.run()
        }
        publish(1, UpdateStatus(source: .rauc, progress: 0.9, message: "Copying"))
        _ = try connection.written()
        connection.setWritable(false)
        publish(2, UpdateStatus(source: .rauc, progress: 1, result: .succeeded))
        publish(3, UpdateStatus(source: .rauc, progress: 0, message: "Installing"))
        publish(4, UpdateStatus(source: .rauc, progress: 0.2, message: "Checking bundle"))
        #expect(try connection.written().isEmpty)
        connection.setWritable(true)
        #expect(try connection.written().compactMap(Self.seq) == [2, 4], "the end, then the newest")
        // An end replaced by the same end is not sent twice.
        connection.setWritable(false)
        publish(5, UpdateStatus(source: .rauc, progress: 1, result: .failed, error: "x"))
        publish(6, UpdateStatus(source: .rauc, progress: 1, result: .failed, error: "x"))
        connection.setWritable(true)
        #expect(try connection.written().compactMap(Self.seq) == [6])
        _ = try connection.channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aRequestSplitAcrossReadsIsOneRequest() throws {
        let connection = try Connection()
        _ = try connection.written()
        try connection.send(#"{"cmd":"pi"#)
        #expect(try connection.written().isEmpty)
        try connection.send(#"ng","id":7}"# + "\n" + #"{"cmd":"ping","id":8}"# + "\n" + #"{"cmd""#)
        #expect(try connection.written() == [.ok(id: 7), .ok(id: 8)])
        try connection.send(#":"ping","id":9}"# + "\r\n")
        #expect(try connection.written() == [.ok(id: 9)])
        _ = try connection.channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aLineOverTheLimitIsAnsweredWithLineTooLongAndTheConnectionCloses() throws {
        let connection = try Connection()
        _ = try connection.written()
        // The limit, then one byte more, over two reads and without a newline yet.
        try connection.send(String(repeating: "a", count: SocketDefaults.maxLineBytes))
        #expect(try connection.written().isEmpty)
        #expect(connection.channel.isActive)
        try connection.send("a")
        connection.channel.embeddedEventLoop.run()

        let written = try connection.written()
        #expect(written.count == 1)
        guard case .error(let error)? = written.first else {
            Issue.record("expected an error, got \(written)")
            return
        }
        #expect(error.code == .lineTooLong)
        #expect(!connection.channel.isActive, "the connection is closed")
    }
}
