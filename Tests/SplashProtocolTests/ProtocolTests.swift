import SplashProtocol
import Testing

@Suite struct ProtocolTests {
    func parse(_ text: String) -> Result<Request, ProtocolError> { Request.parse(Array(text.utf8)) }

    @Test func parsesEveryCommandAndEchoesIds() throws {
        let cases: [(String, Request.Command)] = [
            (#"{"cmd":"ping"}"#, .ping), (#"{"cmd":"state"}"#, .state), (#"{"cmd":"subscribe"}"#, .subscribe),
            (#"{"cmd":"subscribe","ticks":true}"#, .subscribe), (#"{"cmd":"subscribe","ticks":false}"#, .subscribeWithoutTicks),
            (#"{"cmd":"retry"}"#, .retry), (#"{"cmd":"continue-offline"}"#, .continueOffline),
            (#"{"cmd":"dismissed"}"#, .dismissed), (#"{"cmd":"complete","step":"first-frame"}"#, .complete(step: "first-frame")),
            (#"{"cmd":"action","name":"feedback"}"#, .action(name: "feedback")),
            (#"{"cmd":"open","url":"app://orders/1"}"#, .open(url: "app://orders/1")), (#"{"cmd":"relaunch"}"#, .relaunch),
            (#"{"cmd":"sign-in","session":{"user":"Ada"}}"#, .signIn(session: ["user": "Ada"])), (#"{"cmd":"sign-out"}"#, .signOut),
            (#"{"cmd":"alive"}"#, .alive), (#"{"cmd":"resume"}"#, .resume), (#"{"cmd":"route","route":"orders/42"}"#, .route("orders/42")),
        ] + Report.allCases.map { (#"{"cmd":"\#($0.rawValue)"}"#, .report($0)) }
        for (line, command) in cases {
            #expect(try parse(line).get().command == command)
            // Round trip through the client's encoder.
            #expect(try parse(Request(command, id: 7).encoded()).get() == Request(command, id: 7))
        }
        #expect(try parse(#"{"cmd":"ping","id":"abc"}"#).get().id == "abc")
    }

    @Test(arguments: [
        ("[1,2]", "expected a JSON object"), ("nope", "not valid JSON: not a JSON value at byte 0"), (#"{"id":1}"#, "missing \"cmd\""),
        (#"{"cmd":5}"#, "\"cmd\" must be a string"), (#"{"cmd":"fly"}"#, "unknown cmd \"fly\""),
        (#"{"cmd":"complete"}"#, "complete needs a string \"step\""), (#"{"cmd":"sign-in","session":"x"}"#, "sign-in needs an object \"session\""),
        (#"{"cmd":"route"}"#, "route needs a string \"route\""),
        (#"{"cmd":"subscribe","ticks":"no"}"#, "\"ticks\" must be true or false"),
    ])
    func badRequests(line: String, message: String) {
        guard case .failure(let error) = parse(line) else {
            Issue.record("accepted \(line)")
            return
        }
        #expect(error.code == .badRequest)
        #expect(error.message == message)
    }

    @Test func badRequestKeepsTheIdWhenReadable() {
        guard case .failure(let error) = parse(#"{"cmd":"fly","id":3}"#) else {
            Issue.record("accepted an unknown cmd")
            return
        }
        #expect(error.id == 3)
        guard case .failure(let unreadable) = parse(#"{"cmd":"fly","id":3"#) else {
            Issue.record("accepted a line that is not JSON")
            return
        }
        #expect(unreadable.id == nil)
    }

    @Test func serverMessagesEncodeAsSpecifiedAndDecodeBack() {
        #expect(ServerMessage.hello(protocol: 1, version: "0.1.0").encoded() == #"{"type":"hello","protocol":1,"version":"0.1.0"}"#)
        #expect(ServerMessage.ok(id: 3).encoded() == #"{"type":"ok","id":3}"#)
        let error = ServerMessage.error(ProtocolError(code: .invalidTransition, message: "retry is only possible in phase error", id: 3))
        #expect(error.encoded() == #"{"type":"error","id":3,"code":"invalid-transition","message":"retry is only possible in phase error"}"#)
        #expect(ServerMessage.event(name: "action", fields: ["name": "feedback-form", "sheet": "feedback-form"]).encoded()
            == #"{"type":"event","event":"action","name":"feedback-form","sheet":"feedback-form"}"#)
        let others: [ServerMessage] = [
            .hello(protocol: 1, version: "x"), .ok(id: nil), .ok(id: "a"), error,
            .result(id: 4, command: "blame", data: .object(["steps": .array([.object(["id": "auth"])])]), text: "auth 1.2s"),
            .result(id: nil, command: "graph", data: "digraph {}", text: nil),
            .event(name: "open", fields: ["url": "app://orders/1", "route": "/orders/1"]),
        ]
        for message in others {
            #expect(ServerMessage.decode(Array(message.encoded().utf8)) == message, "\(message.encoded())")
        }
    }
}
