import SplashCore
@testable import SplashDaemon
import SplashProtocol
import Testing

/// `AppLife` on its own: what the app's news comes to, with no bus, ledger or controller
/// (AppLifeTests drive it through the real controller and a fake systemd).
@Suite struct AppLifeValueTests {
    static let running = AppWatch.UnitState(activeState: "active", subState: "running", mainPID: 42)

    static func logs(_ actions: [AppLife.Action]) -> [String] {
        actions.compactMap { if case .log(let level, let message) = $0, level != .debug { message } else { nil } }
    }

    @Test func aLostBusIsSaidOnceAndItsReturnRetriesALaunchTheBusStopped() {
        var life = AppLife(settings: AppSettings(unit: "kiosk.service"))
        #expect(Self.logs(life.unitEvent(.lost("no bus"), at: .seconds(1))) == ["lost the watch of the app's unit: no bus; connecting again"])
        #expect(life.unitEvent(.lost("no bus"), at: .seconds(2)).isEmpty, "said once until it is back")
        let back = life.unitEvent(.state(Self.running), at: .seconds(3))
        #expect(Self.logs(back) == ["watching the app's unit again"])
        #expect(back.last == .retryAfterTheBus, "the unit is well: a launch the bus stopped is retried")
        #expect(!life.unitEvent(.state(Self.running), at: .seconds(4)).contains(.retryAfterTheBus), "only after a gap")
    }

    @Test func theWatchsVerdictIsAnActionAndAFinishedLaunchSetsTheScreen() {
        var life = AppLife(settings: AppSettings(unit: "kiosk.service"))
        life.launchBegan(recoveringTheApp: false)
        _ = life.unitEvent(.startQueued(job: 7), at: .seconds(1))
        _ = life.unitEvent(.jobEnded(job: 7, result: "done"), at: .seconds(1))
        #expect(!life.unitEvent(.state(Self.running), at: .seconds(1)).contains { if case .verdict = $0 { true } else { false } })
        let restoring = Destination.Restoration(screen: .home, route: "orders/42")
        let finished = life.launchFinished(at: Destination(screen: .login), restoring: restoring, at: .seconds(2))
        #expect(finished == [.log(.notice, "not restoring route orders/42: the launch went to login")], "a running app: no verdict")
        #expect(life.screen == .login)
        let died = life.unitEvent(.state(AppWatch.UnitState(activeState: "failed", subState: "failed", result: "exit-code")), at: .seconds(3))
        #expect(died.last == .verdict(.recover(.appExited)), "\(died)")
        life.launchBegan(recoveringTheApp: true)
        #expect(life.replaced == 0, "the replaced process is the one systemd last named (none here)")
    }

    @Test func aRouteIsCheckedKeptAndForgottenWhenALaunchBegins() {
        var life = AppLife(settings: AppSettings(unit: "kiosk.service"))
        #expect(life.report(route: "/orders/42") == nil && life.route == "orders/42")
        #expect(life.report(route: "../etc")?.code == .badRequest && life.route == "orders/42", "a bad route changes nothing")
        _ = life.launchFinished(at: Destination(screen: .home), restoring: nil, at: .seconds(1))
        let (kept, said) = life.restoration { _ in true }
        #expect(kept == Destination.Restoration(screen: .home, route: "orders/42") && said.isEmpty)
        let (dropped, told) = life.restoration { _ in false }
        #expect(dropped?.route == nil && Self.logs(told).count == 1)
        life.launchBegan(recoveringTheApp: false)
        #expect(life.route == nil && life.replaced == nil)
    }
}
