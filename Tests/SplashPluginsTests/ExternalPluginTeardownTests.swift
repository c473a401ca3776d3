import SplashCore
import SplashPlugins
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("ExternalPlugin: cancellation and leftover processes", .timeLimit(.minutes(10)))
struct ExternalPluginTeardownTests {
    /// A script that starts a TERM-ignoring grandchild (pid to `grandchild.pid`), says ready, waits.
    private static let stubbornScript = """
        #!/bin/sh
        echo $$ > "$SPLASHD_OPT_DIR/main.pid"
        sh -c 'trap "" TERM; echo $$ > "$0/grandchild.pid.tmp"; mv "$0/grandchild.pid.tmp" "$0/grandchild.pid"; exec sleep 300' "$SPLASHD_OPT_DIR" &
        while [ ! -e "$SPLASHD_OPT_DIR/grandchild.pid" ]; do sleep 0.01; done
        echo '{"message":"ready"}'
        sleep 300
        """

    @Test func cancellationKillsTheWholeGroupIncludingTermIgnoringGrandchild() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("stubborn.sh", Self.stubbornScript)
        let clock = TestClock()
        let grace: Duration = .seconds(30)
        let plugin = fixture.plugin(path, grace: grace, clock: clock)
        let context = fixture.context(step: "stubborn", options: ["dir": .string(fixture.directory)])

        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { fixture.reports.messages == ["ready"] })
        let main = try #require(ProcessProbe.pid(inFile: fixture.path("main.pid")))
        let grandchild = try #require(ProcessProbe.pid(inFile: fixture.path("grandchild.pid")))
        #expect(ProcessProbe.isRunning(grandchild))

        task.cancel()
        // SIGTERM went out at once; the SIGKILL waits for the plugin's clock to pass the grace.
        #expect(await waitUntil { clock.pendingDeadlines == [grace] })
        #expect(ProcessProbe.isRunning(grandchild))
        clock.advance(to: grace)
        let outcome = try #require(await result(of: task), "run returns after the grace")

        #expect(throws: CancellationError.self) { try outcome.get() }
        // run returned only after the group was gone.
        #expect(!ProcessProbe.isRunning(grandchild), "grandchild \(grandchild) outlived the step")
        #expect(!ProcessProbe.isRunning(main))
        // The grandchild ignores SIGTERM: it took SIGKILL.
        #expect(fixture.log.records(containing: "sent SIGKILL").count == 1)
    }

    @Test func cancellationSendsTermFirst() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("polite.sh", """
            #!/bin/sh
            trap 'echo "got TERM" >&2; echo done > "$SPLASHD_OPT_DIR/term"; exit 0' TERM
            echo '{"message":"ready"}'
            while :; do sleep 0.05; done
            """)
        // A long grace: SIGKILL must not be what ends it.
        let plugin = fixture.plugin(path, grace: .seconds(20))
        let context = fixture.context(options: ["dir": .string(fixture.directory)])

        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { fixture.reports.messages == ["ready"] })
        task.cancel()
        let outcome = try #require(await result(of: task))

        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(fixture.read("term") == "done\n")
        #expect(fixture.log.records(containing: "got TERM").count == 1)
        #expect(fixture.log.records(containing: "SIGKILL").isEmpty)
    }

    /// The grace passes on the plugin's clock: a main process that ignores SIGTERM is SIGKILLed
    /// when that clock passes the grace, not a moment before.
    @Test func cancellationKillsMainProcessThatIgnoresTermOnceTheClockPassesTheGrace() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("deaf.sh", """
            #!/bin/sh
            trap 'echo "got TERM" >&2' TERM
            echo $$ > "$SPLASHD_OPT_DIR/main.pid"
            echo '{"message":"ready"}'
            while :; do sleep 0.05; done
            """)
        let clock = TestClock()
        let grace: Duration = .seconds(30)
        let plugin = fixture.plugin(path, grace: grace, clock: clock)
        let context = fixture.context(options: ["dir": .string(fixture.directory)])

        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { fixture.reports.messages == ["ready"] })
        let main = try #require(ProcessProbe.pid(inFile: fixture.path("main.pid")))
        task.cancel()
        #expect(await waitUntil { !fixture.log.records(containing: "got TERM").isEmpty })
        #expect(await waitUntil { clock.pendingDeadlines == [grace] })

        clock.advance(to: grace - .milliseconds(1))
        #expect(clock.pendingDeadlines == [grace], "the teardown still waits")
        #expect(ProcessProbe.isRunning(main))
        #expect(fixture.log.records(containing: "SIGKILL").isEmpty)

        clock.advance(to: grace)
        let outcome = try #require(await result(of: task), "run returns once the clock passed the grace")
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(!ProcessProbe.isRunning(main))
        #expect(fixture.log.records(containing: "sent SIGKILL").count == 1)
    }

    @Test func cancelledBeforeStartRunsNothing() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("never.sh", "#!/bin/sh\ntouch \"$SPLASHD_OPT_DIR/ran\"\n")
        let plugin = fixture.plugin(path)
        let context = fixture.context(options: ["dir": .string(fixture.directory)])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await plugin.run(context)
        }
        let outcome = try #require(await result(of: task))
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(fixture.read("ran") == nil)
    }

    @Test func mainExitingLeavesNoGrandchildHoldingStdout() async throws {
        let fixture = try PluginFixture()
        // The grandchild inherits stdout and keeps it open; the main process exits 0 at once.
        let path = try fixture.script("leaky.sh", """
            #!/bin/sh
            sh -c 'echo $$ > "$0/grandchild.pid.tmp"; mv "$0/grandchild.pid.tmp" "$0/grandchild.pid"; exec sleep 300' "$SPLASHD_OPT_DIR" &
            while [ ! -e "$SPLASHD_OPT_DIR/grandchild.pid" ]; do sleep 0.01; done
            echo '{"facts":{"left":"behind"}}'
            exit 0
            """)
        // A long grace: the grandchild leaves at SIGTERM however slow the machine (the teardown
        // returns as soon as it has gone), so the SIGKILL after the grace is never what ends it.
        let plugin = fixture.plugin(path, grace: .seconds(30))
        let context = fixture.context(options: ["dir": .string(fixture.directory)])

        let task = Task { try await plugin.run(context) }
        // The grandchild sleeps 300 s: a run that waited for it to close stdout would not return
        // within the bound.
        let outcome = try #require(await result(of: task, within: .seconds(120)), "run must not hang on the open stdout")

        #expect(try outcome.get() == ["left": .string("behind")])
        let grandchild = try #require(ProcessProbe.pid(inFile: fixture.path("grandchild.pid")))
        #expect(!ProcessProbe.isRunning(grandchild), "grandchild \(grandchild) outlived the step")
        #expect(fixture.log.records(containing: "exited after SIGTERM").count == 1)
    }

    @Test func leftoverThatIgnoresTermIsKilledAfterSuccess() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("leaky-stubborn.sh", """
            #!/bin/sh
            sh -c 'trap "" TERM; echo $$ > "$0/grandchild.pid.tmp"; mv "$0/grandchild.pid.tmp" "$0/grandchild.pid"; exec sleep 300' "$SPLASHD_OPT_DIR" >/dev/null 2>&1 &
            while [ ! -e "$SPLASHD_OPT_DIR/grandchild.pid" ]; do sleep 0.01; done
            exit 3
            """)
        let plugin = fixture.plugin(path, grace: .milliseconds(200))
        let context = fixture.context(options: ["dir": .string(fixture.directory)])

        let task = Task { try await plugin.run(context) }
        let outcome = try #require(await result(of: task))

        #expect(throws: StepFailure.self) { try outcome.get() }
        let grandchild = try #require(ProcessProbe.pid(inFile: fixture.path("grandchild.pid")))
        #expect(!ProcessProbe.isRunning(grandchild))
        #expect(fixture.log.records(containing: "sent SIGKILL").count == 1)
    }
}
