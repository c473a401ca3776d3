import SplashCore
import SplashProtocol
import Testing

/// The machine's snapshot as the protocol sends it (`LaunchMachine.snapshot(at:)`, a `state` line).
@Suite struct SnapshotWireTests {
    @Test func aMachinesSnapshotEncodesAsSpecifiedAndDecodesBack() throws {
        var h = try MachineHarness([step("auth-refresh", label: "Signing in")])
        h.at(1234)
        let state = h.machine.snapshot(at: h.now)
        let line = ServerMessage.state(state).encoded()
        #expect(line.hasPrefix(#"{"type":"state","seq":"#))
        #expect(line.contains(#""error":null,"destination":null"#))
        #expect(line.contains(#""elapsed_ms":1234"#))
        #expect(line.contains(#""phase":"loading","reason":"boot","slow""#), "every state says why its launch began, right after the phase")
        #expect(ServerMessage.decode(Array(line.utf8)) == .state(state))
    }
}
