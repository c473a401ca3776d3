import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// Hostile plugins against the real daemon: descendants that leave the plugin's process group
/// (a double fork and `setsid`, `setpgid`, a double fork with an emptied environment) die with
/// their step — whether it succeeds, fails or times out — and with the daemon (design §8).
///
/// The time limit counts the time a test waits for the main actor, where the end-to-end tests run
/// one at a time (8 minutes of them under ThreadSanitizer on a busy machine): a guard against a
/// hang, not one an honest run reaches.
@Suite("chaos: plugin processes that escape their process group", .timeLimit(.minutes(30)))
struct PluginEscapeChaosTests {
    /// The kinds of escapees the plugin leaves, one pid file each per attempt.
    nonisolated static let kinds = ["setsid", "setpgid", "bare"]

    /// A plugin that leaves one sleeper of each kind (pid files `KIND-LAUNCH-ATTEMPT` in option
    /// `dir`), then does what option `mode` says: `succeed`, `fail` (exit 3) or `hang`. The
    /// sleepers last an hour: a test that awaits may wait minutes for the main actor, and an
    /// escapee that ended by itself meanwhile is not one its step or the daemon stopped. (Each
    /// test's `Scenario` kills what is left.)
    nonisolated static let escaper = """
        D="$SPLASHD_OPT_DIR"; N="$SPLASHD_LAUNCH-$SPLASHD_ATTEMPT"
        # A double fork and a new session: no longer in the plugin's process group.
        ( setsid -f sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 3600' "$D/setsid-$N" & )
        # A child that moves itself into a process group of its own.
        perl -e 'setpgrp(0, 0); open(my $f, ">", "$ARGV[0].tmp") or die; print $f "$$\\n"; close $f;
                 rename("$ARGV[0].tmp", $ARGV[0]); exec("sleep", "3600")' "$D/setpgid-$N" &
        # A double fork, a new session and an empty environment: nothing marks it as this step's.
        ( setsid -f env -i sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 3600' "$D/bare-$N" & )
        for kind in setsid setpgid bare; do
            while [ ! -e "$D/$kind-$N" ]; do sleep 0.01; done
        done
        echo '{"message":"escaped"}'
        case "$SPLASHD_OPT_MODE" in
            fail) exit 3 ;;
            hang) exec sleep 3600 ;;
        esac
        exit 0
        """

    nonisolated static func config(pids: String, mode: String, timeout: String = "30s") -> String {
        TestConfig.instantSplash + """
        timeout = "60s"

        [[step]]
        id = "escape"
        plugin = "escaper"
        timeout = "\(timeout)"
        [step.options]
        dir = "\(pids)"
        mode = "\(mode)"
        """
    }

    /// A daemon running the escaper, and the directory its pid files go to. Every pid found there
    /// is SIGKILLed when the test ends, so that a failing test leaves nothing behind.
    final class Scenario {
        let pids: TemporaryDirectory
        let plugins: TemporaryDirectory
        let daemon: DaemonProcess

        init(mode: String, timeout: String = "30s") throws {
            pids = try TemporaryDirectory(prefix: "splash-escape")
            plugins = try TemporaryDirectory(prefix: "splash-escape-plugins")
            let scripts = try ScriptPlugins(in: plugins)
            try scripts.add("escaper", PluginEscapeChaosTests.escaper)
            daemon = try DaemonProcess(
                config: PluginEscapeChaosTests.config(pids: pids.path, mode: mode, timeout: timeout),
                pluginDirectories: [scripts.directory]
            )
        }

        /// The escapees of launch `launch` (every attempt), or of every launch.
        func escapees(launch: String? = nil) -> [pid_t] {
            PluginEscapeChaosTests.kinds.flatMap { kind in
                ProcessStatus.pids(inFilesOf: pids.path, prefix: launch.map { "\(kind)-\($0)-" } ?? "\(kind)-")
            }
        }

        func alive(_ pids: [pid_t]) -> [pid_t] { pids.filter(ProcessStatus.isRunning) }

        /// Follows the states until one is in `phases` (and not of launch `notOf`).
        func follow(until phases: Set<Phase>, notOf launch: String? = nil, connection: SplashConnection) throws -> StateMessage {
            try connection.follow(timeout: .seconds(60)) { state, _ in !phases.contains(state.phase) || state.launch == launch }
        }

        deinit {
            for pid in escapees() where ProcessStatus.isRunning(pid) { kill(pid, SIGKILL) }
            daemon.stop()
            pids.remove()
            plugins.remove()
        }
    }

    @MainActor @Test func overSeveralLaunchesNoStrayProcessAccumulates() throws {
        let scenario = try Scenario(mode: "succeed")
        let renderer = try scenario.daemon.connect()
        var launches: [String] = []
        for round in 0..<4 {
            let finished = try scenario.follow(until: [.finished], notOf: launches.last, connection: renderer)
            #expect(finished.steps.first?.status == .succeeded)
            let launch = finished.launch
            launches.append(launch)
            let escapees = scenario.escapees(launch: launch)
            #expect(escapees.count == Self.kinds.count, "round \(round): \(escapees)")
            // The step succeeded only after its escapees were gone.
            #expect(scenario.alive(escapees).isEmpty, "round \(round): outlived the step: \(scenario.alive(escapees))")
            if round < 3, case .ok = try renderer.request(.relaunch) {
            } else if round < 3 {
                Issue.record("relaunch refused")
            }
        }
        #expect(Set(launches).count == 4)
        #expect(scenario.escapees().count == 4 * Self.kinds.count)
        #expect(scenario.alive(scenario.escapees()).isEmpty)
        #expect(scenario.daemon.stop() == 0)
    }

    @MainActor @Test func aFailingStepTakesItsEscapeesAlong() throws {
        let scenario = try Scenario(mode: "fail")
        let renderer = try scenario.daemon.connect()
        let failed = try scenario.follow(until: [.error], connection: renderer)
        #expect(failed.steps.first?.status == .failed)
        let escapees = scenario.escapees(launch: failed.launch)
        #expect(escapees.count >= Self.kinds.count)
        #expect(scenario.alive(escapees).isEmpty, "outlived the failed step: \(scenario.alive(escapees))")
    }

    @MainActor @Test func aTimedOutStepTakesItsEscapeesAlong() async throws {
        // The step's timeout must come after the escaper has spawned all three escapees (it
        // waits for their pid files, then hangs): 10 s, however slow the machine is at spawning.
        let scenario = try Scenario(mode: "hang", timeout: "10s")
        let renderer = try scenario.daemon.connect()
        let failed = try scenario.follow(until: [.error], connection: renderer)
        let escapees = scenario.escapees(launch: failed.launch)
        #expect(escapees.count >= Self.kinds.count)
        // A timed-out attempt is torn down after the step is reported failed: wait for that.
        #expect(await waitUntil { scenario.alive(escapees).isEmpty }, "outlived the timed-out step: \(scenario.alive(escapees))")
    }

    @MainActor @Test func noEscapeeOutlivesTheDaemon() async throws {
        // The step must still run when the daemon stops: while this test awaits, another one may
        // hold the main actor for a while (a blocking end-to-end test), and the time goes on.
        let scenario = try Scenario(mode: "hang", timeout: "10m")
        #expect(await waitUntil { scenario.escapees().count == Self.kinds.count })
        let escapees = scenario.escapees()
        #expect(scenario.alive(escapees).count == Self.kinds.count)
        #expect(scenario.daemon.stop() == 0)
        #expect(scenario.alive(escapees).isEmpty, "outlived the daemon: \(scenario.alive(escapees))")
    }
}
