import SplashJSON
import SplashProtocol
import Testing

/// The modes on the wire: every state says its `mode`; `update` and `shutdown` come with theirs;
/// the `update` and `shutdown` commands.
@Suite struct ModeWireTests {
    static func state(mode: SplashMode, update: UpdateStatus? = nil, shutdown: ShutdownKind? = nil) -> StateMessage {
        var state = StateMessage(seq: 3, launch: "L", phase: .loading, slow: false, progress: 0.25, message: nil, elapsedMs: 5, steps: [],
                                 error: nil, destination: nil)
        state.mode = mode
        state.update = update
        state.shutdown = shutdown
        return state
    }

    @Test(arguments: [
        state(mode: .launch),
        state(mode: .update, update: UpdateStatus(source: .psplash, progress: 0.42, message: "Copying")),
        state(mode: .update, update: UpdateStatus(source: .rauc, progress: 0.8, result: .failed, error: "signature verification failed")),
        state(mode: .shutdown, shutdown: .reboot),
    ])
    func statesWithModesRoundTrip(_ state: StateMessage) {
        #expect(ServerMessage.decode(ServerMessage.state(state).line()) == .state(state))
    }

    @Test func theModeAndItsDataComeLast() {
        let line = ServerMessage.state(Self.state(mode: .update, update: UpdateStatus(source: .splashctl, progress: 0.5))).encoded()
        #expect(line.hasSuffix(#""destination":null,"mode":"update","update":{"source":"splashctl","progress":0.5,"message":null,"result":"running"}}"#))
        #expect(ServerMessage.state(Self.state(mode: .shutdown, shutdown: .poweroff)).encoded().hasSuffix(#""shutdown":"poweroff"}"#))
    }

    @Test func aStateWithoutAModeIsALaunchsAndAModeWithoutItsDataIsRefused() throws {
        let old = #"{"type":"state","seq":1,"launch":"L","phase":"loading","slow":false,"progress":0,"message":null,"elapsed_ms":0,"steps":[],"error":null,"destination":null}"#
        guard case .state(let state)? = ServerMessage.decode(Array(old.utf8)) else { Issue.record("not read"); return }
        #expect(state.mode == .launch)
        let broken = old.replacingOccurrences(of: #""phase":"loading""#, with: #""phase":"loading","mode":"update""#)
        #expect(throws: WireError.self) { try StateMessage(json: JSONValue.parse(Array(broken.utf8))) }
    }

    @Test func anUpdatesTextsAreCutToTheStatesBound() {
        let long = String(repeating: "é", count: 5000)
        let state = Self.state(mode: .update, update: UpdateStatus(source: .psplash, message: long, result: .failed, error: long))
        let bounded = state.bounded().state
        #expect(bounded.update!.message!.utf8.count <= StateMessage.textBytes)
        #expect(bounded.update!.error!.utf8.count <= StateMessage.textBytes)
    }

    func parse(_ line: String) -> Result<Request, ProtocolError> { Request.parse(Array(line.utf8)) }

    @Test func updateAndShutdownCommands() throws {
        #expect(try parse(#"{"cmd":"update","progress":0.42}"#).get().command == .update(.progress(0.42)))
        #expect(try parse(#"{"cmd":"update","message":"Copying"}"#).get().command == .update(.message("Copying")))
        #expect(try parse(#"{"cmd":"update","result":"succeeded"}"#).get().command == .update(.ended(.succeeded, error: nil)))
        #expect(try parse(#"{"cmd":"update","result":"failed","error":"disk full"}"#).get().command == .update(.ended(.failed, error: "disk full")))
        #expect(try parse(#"{"cmd":"update","clear":true}"#).get().command == .update(.quit))
        // A progress and its message together: one input, so one state shows them as a pair.
        #expect(try parse(#"{"cmd":"update","progress":0.9,"message":"Copying"}"#).get().command == .update(.step(0.9, message: "Copying")))
        #expect(try parse(#"{"cmd":"shutdown","kind":"reboot"}"#).get().command == .shutdown(.reboot))
        for command in [Request.Command.update(.progress(0.5)), .update(.message("m")), .update(.step(0.25, message: "m")),
                        .update(.ended(.failed, error: "e")), .update(.quit),
                        .shutdown(.poweroff)] {
            #expect(command.needsControl)
            #expect(try parse(Request(command).encoded()).get().command == command)
        }
    }

    @Test(arguments: [
        #"{"cmd":"update"}"#, #"{"cmd":"update","progress":0.5,"result":"failed"}"#, #"{"cmd":"update","progress":1.5}"#,
        #"{"cmd":"update","progress":1.5,"message":"two"}"#, #"{"cmd":"update","progress":0.5,"message":2}"#,
        #"{"cmd":"update","progress":"half"}"#, #"{"cmd":"update","result":"running"}"#, #"{"cmd":"update","result":"failed","error":4}"#,
        #"{"cmd":"update","clear":false}"#, #"{"cmd":"shutdown"}"#, #"{"cmd":"shutdown","kind":"halt"}"#,
    ])
    func badUpdatesAreBadRequests(_ line: String) {
        guard case .failure(let error) = parse(line) else { Issue.record("accepted \(line)"); return }
        #expect(error.code == .badRequest)
    }
}
