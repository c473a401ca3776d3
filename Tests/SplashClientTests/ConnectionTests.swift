import Glibc
import SplashClient
import SplashCore
import SplashProtocol
import Testing

/// `SplashConnection` against a scripted server on a real Unix socket.
@Suite struct ConnectionTests {
    @Test func readsHello() throws {
        let server = try ScriptedServer { peer in try peer.waitForClose() }
        let connection = try SplashConnection(path: server.path)
        #expect(connection.serverVersion == "9.8.7")
        #expect(connection.serverProtocol == 1)
        #expect(connection.path == server.path)
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func requestReturnsItsReplyAndQueuesSubscriptionMessagesInOrder() throws {
        let server = try ScriptedServer { peer in
            let subscribe = try peer.readRequest()
            guard subscribe.command == .subscribe, let first = subscribe.id else { throw ScriptedServer.Failure(description: "want subscribe with id") }
            try peer.send(.ok(id: first))
            try peer.send(.state(Fixtures.loading(seq: 17)))
            let state = try peer.readRequest()
            guard state.command == .state, let second = state.id, second != first else {
                throw ScriptedServer.Failure(description: "want state with a fresh id")
            }
            // Before the reply: a subscription state, an event, and a reply to someone else's id.
            try peer.send(.state(Fixtures.loading(seq: 18, progress: 0.5)))
            try peer.send(.event(name: "action", fields: ["name": "feedback-form"]))
            try peer.send(.ok(id: "other"))
            try peer.send(.state(Fixtures.loading(seq: 18, progress: 0.5, id: second)))
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        #expect(try connection.request(.subscribe) == .ok(id: 1))
        guard case .state(let reply) = try connection.request(.state) else {
            Issue.record("state reply expected")
            return
        }
        #expect(reply.id == 2)
        #expect(reply.seq == 18)
        // The queued messages come out in arrival order, then nothing more.
        #expect(try connection.receive(timeout: .seconds(5)) == .state(Fixtures.loading(seq: 17)))
        #expect(try connection.receive(timeout: .seconds(5)) == .state(Fixtures.loading(seq: 18, progress: 0.5)))
        #expect(try connection.receive(timeout: .seconds(5)) == .event(name: "action", fields: ["name": "feedback-form"]))
        #expect(try connection.receive(timeout: .seconds(5)) == .ok(id: "other"))
        #expect(throws: ClientError.timedOut) { try connection.receive(timeout: .milliseconds(50)) }
        connection.close()
        #expect(server.finish() == [])
    }

    /// A zero timeout takes what has arrived and waits for nothing: a renderer drawing frames
    /// checks its messages between frames so (splashd-kms never saw a state that came while its
    /// indicator moved, when a zero timeout threw at once without looking).
    @Test func aZeroTimeoutReadsWhatHasArrivedWithoutWaiting() throws {
        let server = try ScriptedServer { peer in
            try peer.send(.state(Fixtures.loading(seq: 3)))
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        // Looked for again and again without waiting (bounded): it arrives and must be taken.
        var message: ServerMessage?
        let end = ContinuousClock.now + .seconds(5)
        while message == nil && ContinuousClock.now < end {
            message = try? connection.receive(timeout: .zero)
        }
        #expect(message == .state(Fixtures.loading(seq: 3)))
        #expect(throws: ClientError.timedOut) { try connection.receive(timeout: .zero) }
        connection.close()
        #expect(server.finish() == [])
    }

    /// A renderer behind a flood takes the newest state of what has arrived, skipping the older
    /// states, replies and events, and decodes only that one.
    @Test func theLatestStateIsTheNewestOfWhatHasArrived() throws {
        let server = try ScriptedServer { peer in
            for seq in 1...500 { try peer.send(.state(Fixtures.loading(seq: UInt64(seq)))) }
            try peer.send(.event(name: "action", fields: ["name": .string("x")]))
            try peer.send(.state(Fixtures.error(seq: 501)))
            try peer.send(.ok(id: .number(9)))
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        var newest: StateMessage?
        let end = ContinuousClock.now + .seconds(10)
        while newest?.seq != 501 && ContinuousClock.now < end {
            if let state = try connection.latestState() { newest = state }
        }
        #expect(newest == Fixtures.error(seq: 501))
        #expect(try connection.latestState() == nil, "nothing newer")
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func errorRepliesComeBackWithTheirCodeAndMessage() throws {
        let server = try ScriptedServer { peer in
            let request = try peer.readRequest()
            guard request.command == .complete(step: "first-frame") else { throw ScriptedServer.Failure(description: "\(request)") }
            try peer.send(.error(ProtocolError(code: .unknownStep, message: "no step \"first-frame\"", id: request.id)))
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        let reply = try connection.request(.complete(step: "first-frame"))
        #expect(reply == .error(ProtocolError(code: .unknownStep, message: "no step \"first-frame\"", id: 1)))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func receiveTimesOutWithinItsBound() throws {
        let server = try ScriptedServer { peer in try peer.waitForClose() }
        let connection = try SplashConnection(path: server.path)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: ClientError.timedOut) { try connection.receive(timeout: .milliseconds(150)) }
        let waited = clock.now - start
        #expect(waited >= .milliseconds(150))
        // It returns: a receive that ignored its bound would block until the server closes, and
        // this one never does. (A bound against a hang, far beyond what a busy machine takes.)
        #expect(waited < .seconds(60))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func requestTimesOutWhenNoReplyComes() throws {
        let server = try ScriptedServer { peer in
            _ = try peer.readRequest()
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        #expect(throws: ClientError.timedOut) { try connection.request(.ping, timeout: .milliseconds(100)) }
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func serverClosingIsConnectionClosed() throws {
        let server = try ScriptedServer { peer in
            try peer.send(.ok(id: nil))
            try peer.sendRaw(Array(#"{"type":"ok""#.utf8))  // a partial line, then the server goes away
        }
        let connection = try SplashConnection(path: server.path)
        #expect(try connection.receive(timeout: .seconds(5)) == .ok(id: nil))
        #expect(throws: ClientError.connectionClosed) { try connection.receive(timeout: .seconds(5)) }
        // It stays closed.
        #expect(throws: ClientError.connectionClosed) { try connection.receiveLine(timeout: .seconds(5)) }
        #expect(server.finish() == [])
    }

    @Test func closedConnectionRefusesToSend() throws {
        let server = try ScriptedServer { peer in try peer.waitForClose() }
        let connection = try SplashConnection(path: server.path)
        connection.close()
        #expect(throws: ClientError.connectionClosed) { try connection.send(Request(.ping)) }
        #expect(throws: ClientError.connectionClosed) { try connection.receive(timeout: .seconds(1)) }
        #expect(server.finish() == [])
    }

    @Test func garbageLinesAreInvalidMessagesButReadableRaw() throws {
        let server = try ScriptedServer { peer in
            try peer.send(line: "not json")
            try peer.send(line: #"{"type":"flying"}"#)
            try peer.send(line: #"{"type":"ok","id":5}"#)
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        #expect(try connection.receiveLine(timeout: .seconds(5)) == Array("not json".utf8))
        #expect(throws: ClientError.invalidMessage(#"not a protocol message: "{"type":"flying"}""#)) {
            try connection.receive(timeout: .seconds(5))
        }
        #expect(try connection.receive(timeout: .seconds(5)) == .ok(id: 5))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func linesUpToTheLimitPassAndLongerOnesAreProtocolErrors() throws {
        let limit = SocketDefaults.maxLineBytes
        let server = try ScriptedServer { peer in
            try peer.sendRaw([UInt8](repeating: UInt8(ascii: "x"), count: limit) + [UInt8(ascii: "\n")])
            // Far more than the limit and no newline at all: the client must give up, not buffer it.
            // It may hang up before all of it is written (EPIPE here), which is fine.
            _ = try? peer.sendRaw([UInt8](repeating: UInt8(ascii: "y"), count: limit * 3))
            _ = try? peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        #expect(try connection.receiveLine(timeout: .seconds(5)).count == limit)
        #expect(throws: ClientError.invalidMessage("a line longer than \(limit) bytes, the protocol's bound (the line cannot be read, and the connection ends)")) {
            try connection.receiveLine(timeout: .seconds(5))
        }
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func sendRawWritesBytesVerbatim() throws {
        let server = try ScriptedServer { peer in
            guard let line = try peer.readLine(), line == Array(#"{"cmd":"ping","id":"x"}"#.utf8) else {
                throw ScriptedServer.Failure(description: "unexpected raw line")
            }
            try peer.send(.ok(id: "x"))
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        try connection.sendRaw(Array("{\"cmd\":\"ping\",\"id\":\"x\"}\n".utf8))
        #expect(try connection.receive(timeout: .seconds(5)) == .ok(id: "x"))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func aFirstLineOtherThanHelloIsRejected() throws {
        let server = try ScriptedServer(hello: false) { peer in
            try peer.send(.ok(id: nil))
            try peer.waitForClose()
        }
        #expect(throws: ClientError.invalidMessage(#"expected hello, got "{"type":"ok"}""#)) {
            _ = try SplashConnection(path: server.path)
        }
        #expect(server.finish() == [])
    }

    @Test func aSilentServerTimesOutTheConnect() throws {
        let server = try ScriptedServer(hello: false) { peer in try peer.waitForClose() }
        #expect(throws: ClientError.timedOut) { _ = try SplashConnection(path: server.path, timeout: .milliseconds(100)) }
        #expect(server.finish() == [])
    }
}
