import SplashCore
import SplashProtocol
import SplashReports
import Testing
import TestSupport

/// `blame`, `critical-chain` and `history` on simulated launches.
@Suite struct ReportTests {
    func record(_ graph: StepGraph, settings: SplashSettings = SplashSettings(timeout: .seconds(60)), launch: String = "6f1c2a3b-9d",
                plan: @escaping (String, Int) -> LaunchSimulation.Attempt) -> LaunchRecord {
        var simulation = LaunchSimulation(graph: graph, settings: settings, launch: launch, plan: plan)
        simulation.finish()
        return simulation.record
    }

    func bootstrapRecord() throws -> LaunchRecord {
        try record(bootstrapGraph()) { id, _ in .ok(bootstrapDurations[id]!) }
    }

    @Test func blameRanksSlowestFirst() throws {
        let entries = Blame.rank(try bootstrapRecord())
        #expect(entries.map(\.id) == ["config-fetch", "profile-sync", "auth-refresh", "quick-action", "launch-counter"])
        #expect(entries.map(\.durationMs) == [900, 700, 600, 150, 50])
        #expect(Blame.text(entries) == """
              900ms config-fetch
              700ms profile-sync
              600ms auth-refresh
              150ms quick-action
               50ms launch-counter

            """)
    }

    @Test func blameShowsAttemptsFailuresAndSkips() throws {
        let graph = try StepGraph(steps: [
            hstep("auth", attempts: 2, backoff: 100), hstep("extra", critical: false), hstep("after-extra", after: ["extra"], critical: false),
        ])
        let launch = record(graph) { id, attempt in
            switch id {
            case "auth": attempt == 1 ? .fail(300, retryable: true, code: .network) : .ok(1000)
            default: .fail(50, code: ErrorCode(rawValue: "bad-config"))
            }
        }
        let entries = Blame.rank(launch)
        #expect(entries.map(\.id) == ["auth", "extra", "after-extra"])
        #expect(entries[0] == Blame.Entry(id: "auth", status: .succeeded, durationMs: 1400, attempts: 2, reason: nil))
        #expect(entries[1].reason == "bad-config")
        #expect(entries[2].status == .skipped)
        #expect(entries[2].durationMs == 0)
        let text = Blame.text(entries)
        #expect(text.contains("  1.400s auth (2 attempts)\n"))
        #expect(text.contains("    50ms extra (failed, bad-config)\n"))
        #expect(text.contains("     0ms after-extra (skipped, extra failed)\n"))
        let json = Blame.json(entries)
        guard case .array(let items) = json else { Issue.record("not an array"); return }
        #expect(items.first?.objectValue?["duration_ms"] == .number(1400))
        #expect(items.first?.objectValue?["attempts"] == .number(2))
    }

    @Test func theCriticalChainWalksBackThroughTheLastDependency() throws {
        let chain = CriticalChain.compute(try bootstrapRecord())
        #expect(chain.dismissingAtMs == 1450)
        #expect(!chain.boundByMinDisplay)
        #expect(chain.links.map(\.id) == ["quick-action", "profile-sync", "auth-refresh"])
        #expect(chain.links.map(\.startMs) == [1300, 600, 0])
        #expect(chain.links.map(\.endMs) == [1450, 1300, 600])
        #expect(chain.text.hasSuffix("""
            dismissing @1.450s
            └─quick-action @1.300s +150ms
              └─profile-sync @0.600s +700ms
                └─auth-refresh @0.000s +600ms

            """))
        let json = chain.json.objectValue
        #expect(json?["bound_by_min_display"] == .bool(false))
        guard case .array(let links)? = json?["chain"] else { Issue.record("no chain"); return }
        #expect(links.first?.objectValue?["id"] == .string("quick-action"))
        #expect(links.first?.objectValue?["duration_ms"] == .number(150))
    }

    @Test func aFastLaunchIsHeldByMinDisplay() throws {
        let graph = try StepGraph(steps: [hstep("a"), hstep("b", after: ["a"])])
        let launch = record(graph, settings: SplashSettings(minDisplay: .seconds(2), timeout: .seconds(60))) { _, _ in .ok(300) }
        let chain = CriticalChain.compute(launch)
        #expect(chain.dismissingAtMs == 2000)
        #expect(chain.boundByMinDisplay)
        #expect(chain.links.map(\.id) == ["b", "a"])
        #expect(chain.text.contains("dismissing @2.000s held by min_display 2.000s (work done @0.600s)\n"))
    }

    @Test func timeInErrorIsShownInTheChain() throws {
        let graph = try StepGraph(steps: [hstep("auth")])
        var simulation = LaunchSimulation(graph: graph) { _, attempt in attempt == 1 ? .fail(100) : .ok(100) }
        simulation.run(until: { $0.phase == .error }) { _, _ in () }
        simulation.wait(untilMs: 5100)
        try simulation.command(.retry)
        simulation.finish()
        let chain = CriticalChain.compute(simulation.record)
        #expect(chain.links.map(\.id) == ["auth"])
        #expect(chain.errorMs == 5000)
        #expect(chain.links.first?.startMs == 0)
        #expect(chain.links.first?.endMs == 5200)
        #expect(chain.text.contains("in phase error, waiting for the user"))
    }

    @Test func historyHasOneLinePerLaunch() throws {
        let good = try bootstrapRecord()
        var routed = good
        routed.launch = "a1b2c3d4e5"
        routed.startedAtUnixMs = 951_782_400_123
        routed.destination = Destination(screen: .login, route: "orders/42")
        routed.reason = .appExited
        let graph = try StepGraph(steps: [hstep("auth-refresh")])
        let broken = record(graph, launch: "dead") { _, _ in .fail(80, code: .network) }
        let stuck = broken
        #expect(stuck.phases.map(\.phase) == [.loading, .error])

        let lines = HistorySummary.lines([good, routed, stuck])
        #expect(lines.count == 3)
        // A record without a reason (written before 0.2) was a boot or a relaunch: `boot`.
        #expect(lines[0].hasPrefix("2024-05-01T09:30:00Z  6f1c2a3b  boot        1.450s  home"))
        #expect(lines[0].hasSuffix("slowest config-fetch 900ms"))
        #expect(lines[1].hasPrefix("2000-02-29T00:00:00Z  a1b2c3d4  app-exited  1.450s  login orders/42"))
        #expect(lines[2].hasPrefix("2024-05-01T09:30:00Z  dead      boot             -  error network (auth-refresh)"))
        #expect(lines[2].hasSuffix("slowest auth-refresh 80ms"))
        let json = HistorySummary.json([good])
        guard case .array(let items) = json else { Issue.record("not an array"); return }
        #expect(items.first?.objectValue?["outcome"] == .string("home"))
        #expect(items.first?.objectValue?["started_at"] == .string("2024-05-01T09:30:00Z"))
        #expect(items.first?.objectValue?["reason"] == .string("boot"))
    }

    @Test func datesBeforeTheEpochAndIncompleteLaunches() throws {
        var record = LaunchRecord(launch: "x", startedAtUnixMs: -1, graphFingerprint: "", minDisplayMs: 0, steps: [])
        #expect(HistorySummary.lines([record]) == ["1969-12-31T23:59:59Z  x         boot        -  incomplete (loading)"])
        record.startedAtUnixMs = 4_102_444_800_000
        #expect(HistorySummary.lines([record]).first?.hasPrefix("2100-01-01T00:00:00Z") == true)
    }
}

extension ReportTests {
    @Test func blameLeavesOutTimeInAHardError() throws {
        let graph = try StepGraph(steps: [hstep("auth"), hstep("config")])
        var simulation = LaunchSimulation(graph: graph) { id, attempt in
            id == "auth" && attempt == 1 ? .fail(100) : .ok(id == "config" ? 900 : 100)
        }
        simulation.run(until: { $0.phase == .error }) { _, _ in () }
        simulation.wait(untilMs: 5100)
        try simulation.command(.retry)
        simulation.finish()
        // config: 0–100 cancelled by the error, 5100–6000 again: 1 s of work, not 6 s.
        let entries = Blame.rank(simulation.record)
        #expect(entries.map(\.id) == ["config", "auth"])
        #expect(entries.map(\.durationMs) == [1000, 200])
        #expect(simulation.record.step("config")?.durationMs == 6000)
    }
}
