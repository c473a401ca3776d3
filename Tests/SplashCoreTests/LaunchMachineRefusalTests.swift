import SplashCore
import SplashProtocol
import Testing

/// Every transition the phase table does not allow is refused with `invalid-transition`, changing nothing.
@Suite struct LaunchMachineRefusalTests {
    static let allCommands: [LaunchMachine.Command] = [.retry, .continueOffline, .dismissed, .relaunch(launch: "L9")]

    /// Which commands each phase accepts.
    static func allowed(in phase: Phase) -> Set<String> {
        switch phase {
        case .loading: []
        case .error: ["retry", "continue-offline"]
        case .dismissing: ["dismissed"]
        case .finished: ["relaunch"]
        }
    }

    static func harness(in phase: Phase) throws -> MachineHarness {
        var h = try MachineHarness([step("a")])
        switch phase {
        case .loading: h.at(10)
            #expect(h.phase == .loading)
        case .error: h.fail("a", at: 10)
        case .dismissing: h.succeed("a", at: 1000)
        case .finished:
            h.succeed("a", at: 1000)
            h.at(1300)
        }
        #expect(h.phase == phase)
        return h
    }

    @Test(arguments: Phase.allCases)
    func refusedCommandsChangeNothing(phase: Phase) throws {
        for command in Self.allCommands where !Self.allowed(in: phase).contains(command.name) {
            var h = try Self.harness(in: phase)
            let later = Int(h.now.milliseconds) + 50
            h.at(later)
            let before = h.machine.snapshot(at: h.now)
            #expect(throws: LaunchMachine.Refusal.self) { try h.command(command, at: later) }
            do {
                _ = try h.machine.apply(command, at: h.now)
                Issue.record("\(command.name) accepted in \(phase)")
            } catch {
                #expect(error.code == .invalidTransition)
                #expect(error.message.contains(command.name))
            }
            #expect(h.machine.snapshot(at: h.now) == before)
        }
    }

    @Test func continueOfflineRefusedWhenNotAllowed() throws {
        var h = try MachineHarness([step("a")], settings: SplashSettings(allowOffline: false))
        h.fail("a", at: 10)
        #expect(h.machine.error?.actions == [.retry])
        #expect(throws: LaunchMachine.Refusal.self) { try h.command(.continueOffline, at: 20) }
        #expect(h.phase == .error)
    }
}
