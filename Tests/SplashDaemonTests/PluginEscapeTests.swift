import Foundation
import SplashCore
import SplashDaemon
import SplashPlugins
import Synchronization
import Testing
import TestSupport

/// Real plugin processes whose descendants leave the process group — a double fork and
/// `setsid`, a child calling `setpgid` — with this process a child subreaper, as the daemon is:
/// none outlives the step, whether it succeeds, fails or is cancelled (its timeout).
@Suite("External plugins: no escaped process outlives its step", .timeLimit(.minutes(10)))
struct PluginEscapeTests {
    let directory: TemporaryDirectory
    let log = LogCapture()

    init() throws {
        #expect(ChildSubreaper.enable() == nil)
        #expect(ChildSubreaper.isEnabled)
        directory = try TemporaryDirectory(prefix: "splash-escape-unit")
    }

    /// Leaves a `setsid` sleeper and a `setpgid` sleeper (pid files `PREFIX-setsid`,
    /// `PREFIX-setpgid`; with `stubborn`, both ignore SIGTERM), says so, then runs `then`.
    static func escaper(prefix: String, stubborn: Bool = false, then: String) -> String {
        let trap = stubborn ? "trap \"\" TERM; " : ""
        let perlTrap = stubborn ? "$SIG{TERM} = \"IGNORE\"; " : ""
        return """
            #!/bin/sh
            D="$SPLASHD_OPT_DIR"
            ( setsid -f sh -c '\(trap)echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; while :; do sleep 1; done' "$D/\(prefix)-setsid" & )
            perl -e '\(perlTrap)setpgrp(0, 0); open(my $f, ">", "$ARGV[0].tmp") or die; print $f "$$\\n"; close $f;
                     rename("$ARGV[0].tmp", $ARGV[0]); sleep 1 while 1' "$D/\(prefix)-setpgid" &
            while [ ! -e "$D/\(prefix)-setsid" ] || [ ! -e "$D/\(prefix)-setpgid" ]; do sleep 0.01; done
            echo '{"message":"escaped"}'
            \(then)
            """
    }

    func plugin(_ name: String, _ script: String, containment: PluginContainment, grace: Duration = .milliseconds(200)) throws -> ExternalPlugin {
        let path = try directory.write("\(name).sh", script, executable: true)
        return ExternalPlugin(
            manifest: PluginManifest(name: name, executable: path, manifestPath: directory.file("\(name).toml")),
            grace: grace,
            environment: PluginEnvironment.Inherited(ProcessInfo.processInfo.environment),
            containment: containment
        )
    }

    /// The reports of a running attempt.
    final class Reports: Sendable {
        private let storage = Mutex<[StepReport]>([])
        var all: [StepReport] { storage.withLock { $0 } }
        func append(_ report: StepReport) { storage.withLock { $0.append(report) } }
    }

    func context(_ step: String, reports: Reports? = nil) -> StepContext {
        let run = StepRun(
            step: StepSpec(id: step, plugin: step, options: ["dir": .string(directory.path)]), launch: "L", attempt: 1, token: 1
        )
        return StepContext(run: run, logger: log.logger()) { report in reports?.append(report) }
    }

    /// The escapees of `prefix`, once both pid files are there.
    func escapees(_ prefix: String) -> [pid_t] {
        ["setsid", "setpgid"].compactMap { ProcessStatus.pid(inFile: directory.file("\(prefix)-\($0)")) }
    }

    /// SIGKILLs what a failing test left running, and removes the directory.
    func cleanUp(_ prefixes: String...) {
        for pid in prefixes.flatMap(escapees) where ProcessStatus.isRunning(pid) { kill(pid, SIGKILL) }
        directory.remove()
    }

    @Test func afterSuccess() async throws {
        defer { cleanUp("ok") }
        let plugin = try plugin("ok", Self.escaper(prefix: "ok", then: "exit 0"), containment: PluginContainment())
        let facts = try await plugin.run(context("ok"))
        #expect(facts == [:])
        let escapees = escapees("ok")
        #expect(escapees.count == 2)
        #expect(escapees.filter(ProcessStatus.isRunning).isEmpty, "outlived the step: \(escapees)")
        #expect(log.records(.notice, containing: "left the plugin's process group").count == 1)
    }

    @Test func afterFailure() async throws {
        defer { cleanUp("fail") }
        let plugin = try plugin("fail", Self.escaper(prefix: "fail", then: "exit 3"), containment: PluginContainment())
        let failure = await #expect(throws: StepFailure.self) { try await plugin.run(context("fail")) }
        #expect(failure?.code == .pluginExited)
        let escapees = escapees("fail")
        #expect(escapees.count == 2)
        #expect(escapees.filter(ProcessStatus.isRunning).isEmpty, "outlived the step: \(escapees)")
    }

    @Test func afterTimeout() async throws {
        defer { cleanUp("hang") }
        let plugin = try plugin("hang", Self.escaper(prefix: "hang", then: "exec sleep 300"), containment: PluginContainment())
        let reports = Reports()
        let task = Task { try await plugin.run(context("hang", reports: reports)) }
        #expect(await waitUntil { reports.all == [.message("escaped")] })
        let escapees = escapees("hang")
        #expect(escapees.filter(ProcessStatus.isRunning).count == 2)
        task.cancel()
        let outcome = try #require(await result(of: task))
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(escapees.filter(ProcessStatus.isRunning).isEmpty, "outlived the step: \(escapees)")
    }

    @Test func escapeesThatIgnoreTermGetKillAfterTheGrace() async throws {
        defer { cleanUp("deaf") }
        let script = Self.escaper(prefix: "deaf", stubborn: true, then: "exit 0")
        let plugin = try plugin("deaf", script, containment: PluginContainment(), grace: .milliseconds(300))
        _ = try await plugin.run(context("deaf"))
        let escapees = escapees("deaf")
        #expect(escapees.count == 2)
        #expect(escapees.filter(ProcessStatus.isRunning).isEmpty, "outlived the step: \(escapees)")
        #expect(log.records(.notice, containing: "SIGKILL after").count == 1)
    }

    /// Two attempts at once: the one that ends takes its own escapees, never the other's.
    @Test func aStepTakesOnlyItsOwnEscapees() async throws {
        defer { cleanUp("first", "second") }
        let containment = PluginContainment()
        let first = try plugin("first", Self.escaper(prefix: "first", then: "exit 0"), containment: containment)
        let second = try plugin("second", Self.escaper(prefix: "second", then: "exec sleep 300"), containment: containment)
        let reports = Reports()
        let running = Task { try await second.run(context("second", reports: reports)) }
        #expect(await waitUntil { reports.all == [.message("escaped")] })

        _ = try await first.run(context("first"))
        #expect(escapees("first").filter(ProcessStatus.isRunning).isEmpty)
        #expect(escapees("second").filter(ProcessStatus.isRunning).count == 2, "the running step lost its processes")

        running.cancel()
        _ = try #require(await result(of: running))
        #expect(escapees("second").filter(ProcessStatus.isRunning).isEmpty)
    }
}
