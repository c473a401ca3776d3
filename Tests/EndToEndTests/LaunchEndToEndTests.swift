import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// Whole launches through the real daemon, real plugin processes and a real socket.
@MainActor @Suite struct LaunchEndToEndTests {
    @Test func launchReachesFinishedWhenTheRendererAcknowledges() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("quick", """
            echo '{"progress":0.5}'
            echo '{"message":"Half way"}'
            echo "a plain line for the log"
            echo '{"facts":{"authenticated":true,"step_seen":"'"$SPLASHD_STEP"'"}}'
            """)
        let daemon = try DaemonProcess(
            config: """
                [splash]
                min_display = "300ms"
                slow_after = "10s"
                exit_animation = "1m"

                [[step]]
                id = "fetch"
                plugin = "quick"
                label = "Fetching"

                [[step]]
                id = "prepare"
                plugin = "quick"
                after = ["fetch"]
                """,
            pluginDirectories: [plugins.directory]
        )
        let renderer = try daemon.connect()
        var states: [StateMessage] = []
        let dismissing = try renderer.follow(timeout: .seconds(20)) { state, _ in
            states.append(state)
            return state.phase != .dismissing
        }
        #expect(states.first?.phase == .loading)
        #expect(dismissing.progress == 1)
        #expect(dismissing.elapsedMs >= 300)
        #expect(dismissing.steps.map(\.status) == [.succeeded, .succeeded])
        #expect(zip(states, states.dropFirst()).allSatisfy { $1.seq == $0.seq + 1 }, "no gaps for a reading subscriber")
        #expect(zip(states, states.dropFirst()).allSatisfy { $1.progress >= $0.progress })
        #expect(states.dropLast().allSatisfy { $0.progress < 1 })

        // The renderer's exit animation is over.
        let app = try daemon.connect()
        #expect(try app.request(.dismissed) == .ok(id: 1))
        let finished = try renderer.follow(timeout: .seconds(10)) { state, _ in state.phase != .finished }
        #expect(finished.destination == Destination(screen: .home))
        #expect(daemon.log.contains("a plain line for the log"))
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("splashd stopped"))
    }

    /// After `finished` the daemon gives the pages the launch touched back to the system, once per
    /// launch, and the kernel takes the advice. (How much resident memory that frees depends on
    /// who else maps the same files — here every daemon of the parallel test run shares the
    /// binary — so the amount is measured by the benchmarks, and by `MemoryReleaseTests` on a
    /// process of its own.)
    @Test func memoryIsReleasedAfterEachFinishedLaunch() throws {
        let daemon = try DaemonProcess(
            config: TestConfig.instantSplash + """
                [[step]]
                id = "hold"
                plugin = "signal"
                """,
            extraArguments: ["--verbose"]
        )
        let client = try daemon.connect()
        let released = "released memory after the launch"
        for launch in 1...2 {
            if launch == 2 {
                guard case .ok = try client.request(.relaunch) else { Issue.record("relaunch refused"); return }
            }
            guard case .ok = try client.request(.complete(step: "hold")) else { Issue.record("complete refused"); return }
            let finished = try client.follow(timeout: .seconds(20)) { state, _ in state.phase != .finished }
            #expect(finished.phase == .finished)
            try #require(daemon.waitForLog(released, count: launch), "no release logged after launch \(launch):\n\(daemon.log)")
        }
        let logged = daemon.logLines(containing: released)
        #expect(logged.count == 2, "one release per launch: \(logged)")
        for line in logged {
            #expect(line.contains("refused=0"), "the kernel refused some advice: \(line)")
            #expect(!line.contains("regions=0"), "nothing to release: \(line)")
            #expect(line.contains(" kB -> "), "no resident figures: \(line)")
        }
        #expect(daemon.stop() == 0)
    }

    @Test func failingCriticalStepShowsAnErrorAndRetryFinishesTheLaunch() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("flaky", """
            if [ -e "$SPLASHD_OPT_MARKER" ]; then exit 0; fi
            touch "$SPLASHD_OPT_MARKER"
            echo "the backend said no" >&2
            exit 1
            """)
        let daemon = try DaemonProcess(
            config: TestConfig.splash(exitAnimation: "50ms") + """
                [[step]]
                id = "login"
                plugin = "flaky"
                label = "Signing in"
                [step.options]
                marker = "\(dir.file("marker"))"
                """,
            pluginDirectories: [plugins.directory]
        )
        let renderer = try daemon.connect()
        let error = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .error }
        #expect(error.error?.step == "login")
        #expect(error.error?.code == .stepFailed)
        #expect(error.error?.actions == [.retry, .continueOffline])
        #expect(error.error?.detail?.contains("the backend said no") == true)
        #expect(error.steps[0].status == .failed)

        let app = try daemon.connect()
        #expect(try app.request(.retry) == .ok(id: 1))
        let finished = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .finished }
        #expect(finished.steps[0].status == .succeeded)
        #expect(finished.steps[0].attempt == 2)
        #expect(daemon.log.contains("the backend said no"))
        #expect(daemon.log.contains("step=login"))
    }

    @Test func softTimeoutShowsAnErrorThenDismissesByItself() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let daemon = try DaemonProcess(
            config: """
                [splash]
                min_display = "0ms"
                timeout = "300ms"
                exit_animation = "50ms"

                [[step]]
                id = "gpu"
                plugin = "wait-device"
                [step.options]
                path = "\(dir.file("card0"))"
                """,
            pluginDirectories: ["\(Binaries.packageRoot)/plugins"]
        )
        let renderer = try daemon.connect()
        let error = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .error }
        #expect(error.error?.code == .timeout)
        #expect(error.error?.message == "This is taking longer than expected")
        #expect(error.steps[0].status == .running)
        // The device appears: no command needed, the launch moves on.
        _ = FileManager.default.createFile(atPath: dir.file("card0"), contents: nil)
        var phases: [Phase] = []
        try renderer.follow(timeout: .seconds(20)) { state, _ in
            phases.append(state.phase)
            return state.phase != .finished
        }
        #expect(phases.contains(.dismissing))
        #expect(phases.last == .finished)
    }

    @Test func continueOfflineSkipsTheFailedStepAndDismisses() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("down", "exit 3")
        try plugins.add("ok", #"echo '{"facts":{"authenticated":false,"first_launch":true}}'"#)
        let daemon = try DaemonProcess(
            config: TestConfig.splash(exitAnimation: "50ms") + """
                [[step]]
                id = "account"
                plugin = "ok"

                [[step]]
                id = "sync"
                plugin = "down"
                after = ["account"]
                """,
            pluginDirectories: [plugins.directory]
        )
        let renderer = try daemon.connect()
        let error = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .error }
        #expect(error.error?.detail?.contains("3") == true)
        let app = try daemon.connect()
        #expect(try app.request(.continueOffline) == .ok(id: 1))
        let finished = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .finished }
        #expect(finished.steps.map(\.status) == [.succeeded, .skipped])
        #expect(finished.destination?.screen == .onboarding)
        // Refused transitions change nothing and say why.
        guard case .error(let refusal) = try app.request(.retry) else {
            Issue.record("retry accepted in phase finished")
            return
        }
        #expect(refusal.code == .invalidTransition)
    }

    @Test func signalStepHoldsTheSplashUntilCompleted() throws {
        let daemon = try DaemonProcess(
            config: TestConfig.splash(exitAnimation: "50ms") + """
                [[step]]
                id = "first-frame"
                plugin = "signal"
                """
        )
        let renderer = try daemon.connect()
        let loading = try renderer.follow(timeout: .seconds(20)) { state, _ in state.steps.first?.status != .running }
        #expect(loading.phase == .loading)
        let app = try daemon.connect()
        guard case .error(let unknown) = try app.request(.complete(step: "nope")) else {
            Issue.record("complete of an unknown step accepted")
            return
        }
        #expect(unknown.code == .unknownStep)
        #expect(try app.request(.complete(step: "first-frame")) == .ok(id: 2))
        let finished = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .finished }
        #expect(finished.steps[0].status == .succeeded)
        // Quick actions after finished are broadcast as events.
        let events = try daemon.connect()
        _ = try events.follow(timeout: .seconds(5)) { _, _ in false }
        #expect(try app.request(.action(name: "feedback-form")) == .ok(id: 3))
        let event = try events.receive(timeout: .seconds(5))
        #expect(event == .event(name: "action", fields: ["name": "feedback-form"]))
    }
}

@MainActor @Suite struct FollowEndToEndTests {
    /// A second follow on a subscribed connection starts from the current state, never from states
    /// that piled up unread before it asked (they are older snapshots).
    @Test func aLaterFollowStartsFromTheCurrentState() throws {
        let daemon = try DaemonProcess(config: TestConfig.splash(exitAnimation: "1m") + """
            [[step]]
            id = "hold"
            plugin = "signal"

            [[step]]
            id = "hold-more"
            plugin = "signal"
            """)
        let renderer = try daemon.connect()
        let first = try renderer.follow(timeout: .seconds(10)) { _, _ in false }
        #expect(first.phase == .loading)
        // Several states reach the renderer's socket while it does not read.
        let app = try daemon.connect()
        #expect(try app.request(.complete(step: "hold")) == .ok(id: 1))
        _ = try app.follow(timeout: .seconds(10)) { state, _ in state.steps[0].status != .succeeded }
        #expect(try app.request(.complete(step: "hold-more")) == .ok(id: 3))
        let current = try app.follow(timeout: .seconds(10)) { state, _ in state.phase != .dismissing }
        var seen: [StateMessage] = []
        _ = try renderer.follow(timeout: .seconds(10)) { state, _ in
            seen.append(state)
            return false
        }
        #expect(seen.first?.phase == .dismissing)
        #expect(seen.first?.seq == current.seq)
    }
}
