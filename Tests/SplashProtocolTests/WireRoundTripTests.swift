import SplashJSON
import SplashProtocol
import Testing

/// Every wire type is written by `JSONWriter` and read back through one path
/// (`JSONValue.parse` then `init(json:)`): what one side writes, the other reads unchanged.
@Suite struct WireRoundTripTests {
    static let error = ErrorInfo(
        code: .network, message: "Unable to connect", step: "auth-refresh", actions: [.retry, .continueOffline],
        detail: "Unable to connect: https://auth.example.invalid/token: connection refused"
    )
    static let destination = Destination(screen: .home, route: "orders/42", sheet: "feedback-form", reviewPrompt: true)

    static func state(phase: Phase, error: ErrorInfo? = nil, destination: Destination? = nil) -> StateMessage {
        StateMessage(
            id: 9, seq: 17, launch: "6f1c", phase: phase, slow: true, progress: 0.425, message: "Signing in",
            elapsedMs: 1234, etaMs: 800,
            steps: [
                .init(id: "auth-refresh", status: .failed, attempt: 3, durationMs: 812, label: "Signing in", critical: true, reason: "down"),
                .init(id: "quick-action", status: .skipped, attempt: 0, durationMs: 0, critical: false),
            ],
            error: error, destination: destination
        )
    }

    @Test(arguments: [
        state(phase: .loading),
        state(phase: .error, error: error),
        state(phase: .error, error: ErrorInfo(code: .timeout, message: "This is taking longer than expected", step: nil, actions: [.retry])),
        state(phase: .finished, destination: destination),
        state(phase: .finished, destination: Destination(screen: .onboarding)),
    ])
    func statesRoundTrip(_ state: StateMessage) throws {
        let line = ServerMessage.state(state).line()
        #expect(ServerMessage.decode(line) == .state(state))
    }

    @Test func errorAndDestinationRoundTripOnTheirOwn() throws {
        var writer = JSONWriter()
        Self.error.write(to: &writer)
        #expect(try ErrorInfo(json: JSONValue.parse(writer.bytes)) == Self.error)
        writer = JSONWriter()
        Self.destination.write(to: &writer)
        #expect(writer.string == #"{"screen":"home","route":"orders/42","sheet":"feedback-form","review_prompt":true}"#)
        #expect(try Destination(json: JSONValue.parse(writer.bytes)) == Self.destination)
    }

    @Test func everyServerMessageRoundTrips() {
        let messages: [ServerMessage] = [
            .hello(protocol: 1, version: "0.1.0"), .ok(id: nil), .ok(id: "a"),
            .error(ProtocolError(code: .permissionDenied, message: "retry needs root", id: 4)),
            .error(ProtocolError(code: ErrorCode(rawValue: "from-a-newer-daemon"), message: "?")),
            .result(id: 2, command: "blame", data: .object(["steps": .array([1, 2])]), text: "a 1 ms"),
            .result(id: nil, command: "graph", data: .object(["dot": "digraph {}"]), text: nil),
            .event(name: "action", fields: ["name": "feedback-form", "route": "orders/42"]),
            .state(Self.state(phase: .dismissing)),
        ]
        for message in messages {
            #expect(ServerMessage.decode(message.line()) == message, "\(message.encoded())")
        }
    }

    @Test func aCodeThisBuildDoesNotKnowIsKeptAsWritten() {
        let code = ErrorCode(rawValue: "from-a-newer-daemon")
        #expect(code.rawValue == "from-a-newer-daemon")
        #expect(code != .unavailable)
        #expect(ErrorCode(rawValue: "invalid-transition") == .invalidTransition)
    }

    @Test(arguments: [
        #"{"type":"state","seq":"1"}"#, #"{"type":"state","seq":1,"launch":"x","phase":"flying"}"#,
        #"{"type":"hello"}"#, #"{"type":"error","code":5,"message":"x"}"#, #"{"type":"teleport"}"#, "[]", "nope",
    ])
    func malformedLinesAreNotMessages(_ line: String) {
        #expect(ServerMessage.decode(Array(line.utf8)) == nil)
    }
}
