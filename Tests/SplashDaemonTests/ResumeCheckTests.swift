import SplashBuiltins
import SplashCore
import SplashJSON
@testable import SplashDaemon
import Testing

/// `ResumeCheck` on its own: what a resume checks and what it asks the controller to do, with
/// no plugin, task or clock (AppLifeTests drive it through the real controller).
@Suite struct ResumeCheckTests {
    /// The graph the checks run on: made in each test, so a fault in it fails that test with its
    /// reason (a `try!` in a static property would end the whole run).
    static func graph() throws -> StepGraph {
        try StepGraph(steps: [
            StepSpec(id: "auth", plugin: "auth-refresh"),
            StepSpec(id: "config", plugin: "config-fetch", after: ["auth"]),
            StepSpec(id: "extras", plugin: "config-fetch", after: ["auth"], critical: false),
            StepSpec(id: "count", plugin: "launch-counter", after: ["auth"]),
            StepSpec(id: "quick", plugin: "quick-action"),
            StepSpec(id: "first-frame", plugin: "signal", after: ["config"]),
        ])
    }
    static let settings = SplashSettings(minDisplay: .seconds(1), exitAnimation: .zero)

    static func starts(_ actions: [ResumeCheck.Action]) -> [StepRun] {
        actions.compactMap { if case .start(let run) = $0 { run } else { nil } }
    }

    @Test func theCheckIsTheSessionItsCriticalDependantsAndTheQuickActionsNotTheLaunchsOwnSteps() throws {
        let graph = try Self.graph()
        let cut = try #require(ResumeCheck.graph(of: graph))
        #expect(cut.steps.map(\.id) == ["auth", "config", "quick"])
        #expect(ResumeCheck.graph(of: try StepGraph(steps: [StepSpec(id: "f", plugin: "signal")])) == nil)
    }

    @Test func aResumeDuringALaunchStartsNothing() throws {
        let graph = try Self.graph()
        var check = ResumeCheck()
        let actions = check.resume(phase: .loading, graph: graph, settings: Self.settings, at: .seconds(1))
        #expect(Self.starts(actions).isEmpty && check.machine == nil)
        #expect(actions.contains { if case .log(.info, let message, _) = $0 { message.contains("splash is up") } else { false } })
    }

    @Test func aValidSessionEndsTheCheckAndSendsTheQuickActionAsAnEvent() throws {
        let graph = try Self.graph()
        var check = ResumeCheck()
        let started = Self.starts(check.resume(phase: .finished, graph: graph, settings: Self.settings, at: .seconds(1)))
        #expect(started.map(\.step.id).sorted() == ["auth", "quick"] && started.allSatisfy { $0.launch == "resume-1" })
        #expect(check.resume(phase: .finished, graph: graph, settings: Self.settings, at: .seconds(1)).isEmpty, "one check at a time")
        var actions: [ResumeCheck.Action] = []
        for run in started {
            let facts: Facts = run.step.id == "auth" ? ["authenticated": true] : ["action": "kiosk://orders/42", "route": "orders/42"]
            actions += check.stepFinished(token: run.token, result: .success(facts), at: .seconds(2))
        }
        let config = try #require(Self.starts(actions).first)
        actions = check.stepFinished(token: config.token, result: .success([:]), at: .seconds(3))
        #expect(actions.contains(.cancelAll) && check.machine == nil)
        #expect(actions.last == .broadcast(name: "open", fields: ["url": "kiosk://orders/42", "route": "orders/42"]))
        #expect(!actions.contains { if case .beginLaunch = $0 { true } else { false } })
        #expect(check.end().isEmpty, "ended once")
    }

    @Test func aSessionGoneBeginsTheLaunchCarryingTheActionItsStepTook() throws {
        let graph = try Self.graph()
        var check = ResumeCheck()
        let started = Self.starts(check.resume(phase: .finished, graph: graph, settings: Self.settings, at: .seconds(1)))
        var actions: [ResumeCheck.Action] = []
        for run in started {
            let facts: Facts = run.step.id == "auth" ? ["authenticated": false] : ["action": "feedback"]
            actions += check.stepFinished(token: run.token, result: .success(facts), at: .seconds(2))
        }
        for run in Self.starts(actions) { actions += check.stepFinished(token: run.token, result: .success([:]), at: .seconds(3)) }
        #expect(actions.suffix(2) == [.log(.notice, "resume: the session is gone; the splash comes back (login)", ["event": "resume", "launch": "resume-1"]),
                                      .beginLaunch(carrying: .action("feedback"))])
        #expect(check.machine == nil)
    }
}
