import SplashClient
import SplashCore
import SplashProtocol
import Testing

/// `PhaseWaiter` and `watch` against a scripted server that streams states.
@Suite struct FollowTests {
    /// A server that answers `subscribe` with ok, streams `states`, then either waits for the
    /// client to hang up or (with `hangUp`) closes the connection itself.
    func streaming(_ states: [StateMessage], hangUp: Bool = false) throws -> ScriptedServer {
        try streamingLines(states.map { ServerMessage.state($0).encoded() }, hangUp: hangUp)
    }

    func streamingLines(_ lines: [String], hangUp: Bool = false) throws -> ScriptedServer {
        try ScriptedServer { peer in
            let request = try peer.readRequest()
            guard request.command == .subscribe else { throw ScriptedServer.Failure(description: "want subscribe, got \(request)") }
            try peer.send(.ok(id: request.id))
            for line in lines { try peer.send(line: line) }
            if !hangUp { try peer.waitForClose() }
        }
    }

    @Test func waitReturnsWhenThePhaseIsReached() throws {
        let server = try streaming([Fixtures.loading(seq: 17), Fixtures.error(seq: 18), Fixtures.finished(seq: 19)])
        let connection = try SplashConnection(path: server.path)
        let outcome = try PhaseWaiter(.finished, timeout: .seconds(5)).run(on: connection)
        #expect(outcome == .reached(Fixtures.finished(seq: 19)))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func waitReturnsAtOnceWhenAlreadyInThePhase() throws {
        let server = try streaming([Fixtures.loading(seq: 17)])
        let connection = try SplashConnection(path: server.path)
        #expect(try PhaseWaiter(.loading).run(on: connection) == .reached(Fixtures.loading(seq: 17)))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func waitingForDismissingEndsAtFinishedToo() throws {
        let waiter = PhaseWaiter(.dismissing)
        #expect(waiter.accepts(.dismissing) && waiter.accepts(.finished))
        #expect(!waiter.accepts(.loading) && !waiter.accepts(.error))
        #expect(!PhaseWaiter(.finished).accepts(.dismissing))
        let server = try streaming([Fixtures.loading(seq: 17), Fixtures.finished(seq: 20)])
        let connection = try SplashConnection(path: server.path)
        #expect(try waiter.run(on: connection) == .reached(Fixtures.finished(seq: 20)))
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func waitTimesOutWithTheLastStateSeen() throws {
        let server = try streaming([Fixtures.loading(seq: 17), Fixtures.error(seq: 18)])
        let connection = try SplashConnection(path: server.path)
        // The limit also bounds the subscription's reply and the two states: long enough for a
        // busy machine to deliver them, so the last state seen is the error.
        let waiter = PhaseWaiter(.finished, timeout: .seconds(2))
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try waiter.run(on: connection)
        #expect(clock.now - start >= .seconds(2))
        #expect(outcome == .timedOut(lastSeen: Fixtures.error(seq: 18)))
        #expect(waiter.timeoutMessage(lastSeen: Fixtures.error(seq: 18))
            == "timed out after 2s waiting for phase finished (phase is error)")
        #expect(PhaseWaiter(.loading).timeoutMessage(lastSeen: nil) == "timed out waiting for phase loading")
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func waitFailsWhenTheDaemonGoesAway() throws {
        let server = try streaming([Fixtures.loading(seq: 17)], hangUp: true)
        let connection = try SplashConnection(path: server.path)
        #expect(throws: ClientError.connectionClosed) { try PhaseWaiter(.finished).run(on: connection) }
        #expect(server.finish() == [])
    }

    @Test func aRefusedSubscriptionIsRejected() throws {
        let refusal = ProtocolError(code: .unavailable, message: "shutting down")
        let server = try ScriptedServer { peer in
            let request = try peer.readRequest()
            var reply = refusal
            reply.id = request.id
            try peer.send(.error(reply))
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        var expected = refusal
        expected.id = 1
        #expect(throws: ClientError.rejected(expected)) { try PhaseWaiter(.finished).run(on: connection) }
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func watchPrintsOneLinePerVisibleChangeUntilFinished() throws {
        var sameLine = Fixtures.loading(seq: 18)
        sameLine.elapsedMs += 500  // not shown in a watch line
        let repeated = sameLine
        let server = try ScriptedServer { peer in
            let request = try peer.readRequest()
            try peer.send(.ok(id: request.id))
            for state in [Fixtures.loading(seq: 17), repeated, Fixtures.error(seq: 19)] { try peer.send(.state(state)) }
            try peer.send(.event(name: "action", fields: ["name": "x"]))
            // The states after finished go in the same write as it: the client closes once it has
            // finished, and a later write would race that close (EPIPE, seen once in CI).
            var tail: [UInt8] = []
            for state in [Fixtures.dismissing(seq: 20), Fixtures.finished(seq: 21), Fixtures.loading(seq: 22)] {
                tail += ServerMessage.state(state).line() + [UInt8(ascii: "\n")]
            }
            try peer.sendRaw(tail)
            try peer.waitForClose()
        }
        let connection = try SplashConnection(path: server.path)
        var lines: [String] = []
        let last = try connection.watch(json: false) { lines.append($0) }
        #expect(lines == [
            StatusRenderer.watchLine(Fixtures.loading()), StatusRenderer.watchLine(Fixtures.error()),
            StatusRenderer.watchLine(Fixtures.dismissing()), StatusRenderer.watchLine(Fixtures.finished()),
        ])
        #expect(last.seq == 21)
        connection.close()
        #expect(server.finish() == [])
    }

    @Test func watchJSONPassesStateLinesThroughVerbatim() throws {
        // Unusual spacing and key order: only a verbatim copy reproduces these.
        let lines = [
            #"{ "seq": 1, "type": "state", "launch": "L", "phase": "loading", "slow": false, "progress": 0.10, "message": null, "elapsed_ms": 5, "steps": [], "error": null, "destination": null }"#,
            #"{"type":"state","seq":2,"launch":"L","phase":"finished","slow":false,"progress":1.0,"message":null,"elapsed_ms":9,"steps":[],"error":null,"destination":{"screen":"login","route":null,"sheet":null,"review_prompt":false}}"#,
        ]
        let server = try streamingLines(lines)
        let connection = try SplashConnection(path: server.path)
        var seen: [String] = []
        try connection.watch(json: true) { seen.append($0) }
        #expect(seen == lines)
        connection.close()
        #expect(server.finish() == [])
    }
}
