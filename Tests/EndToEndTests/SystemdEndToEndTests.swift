import Foundation
import SplashClient
import SplashCore
import Testing
import TestSupport

/// The daemon under (stand-ins of) systemd: a real NOTIFY_SOCKET and real socket activation.
@MainActor @Suite struct SystemdEndToEndTests {
    static func config(steps: [String]) -> String {
        var text = TestConfig.instantSplash + """
            """
        for step in steps {
            text += "\n[[step]]\nid = \"\(step)\"\nplugin = \"signal\"\nlabel = \"Waiting for \(step)\"\n"
        }
        return text
    }

    @Test func notifiesReadyStatusWatchdogReloadingAndStopping() throws {
        let notifyDir = try TemporaryDirectory()
        defer { notifyDir.remove() }
        let listener = try NotifyListener(path: notifyDir.file("notify"))
        let daemon = try DaemonProcess(
            config: Self.config(steps: ["frame"]),
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"]
        )
        #expect(listener.waitFor(line: "READY=1") != nil)
        #expect(listener.waitFor(line: "STATUS=loading 0%: Waiting for frame") != nil)
        // Pings every 100 ms: wait for three.
        for _ in 0..<3 { #expect(listener.waitFor(line: "WATCHDOG=1") != nil) }

        // A broken config on SIGHUP is logged and the running one kept.
        try daemon.rewriteConfig("this is = = not toml")
        daemon.send(SIGHUP)
        #expect(listener.waitFor(line: "RELOADING=1") != nil)
        #expect(listener.waitFor(line: "READY=1") != nil)
        #expect(daemon.log.contains("reload failed, keeping the running configuration"))

        // A good one takes effect with the next launch, never midway.
        try daemon.rewriteConfig(Self.config(steps: ["frame", "network"]) + "\n[socket]\npath = \"\(daemon.socketPath)\"\n")
        daemon.send(SIGHUP)
        #expect(listener.waitFor(line: "RELOADING=1") != nil)
        #expect(listener.waitFor(line: "READY=1") != nil)
        let client = try daemon.connect()
        guard case .state(let current) = try client.request(.state) else {
            Issue.record("no state")
            return
        }
        #expect(current.steps.map(\.id) == ["frame"])
        #expect(try client.request(.complete(step: "frame")) == .ok(id: 2))
        #expect(listener.waitFor(line: "STATUS=finished: home") != nil)
        #expect(try client.request(.relaunch) == .ok(id: 3))
        guard case .state(let relaunched) = try client.request(.state) else {
            Issue.record("no state")
            return
        }
        #expect(relaunched.steps.map(\.id) == ["frame", "network"])
        #expect(relaunched.seq > current.seq)

        #expect(daemon.stop() == 0)
        #expect(listener.waitFor(line: "STOPPING=1", timeout: .seconds(5)) != nil)
    }

    @Test func servesASocketHandedOverBySystemdAndNeverRemovesIt() throws {
        let activate = "/usr/bin/systemd-socket-activate"
        guard FileManager.default.isExecutableFile(atPath: activate) else {
            print("skipped: \(activate) is not installed")
            return
        }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("activated.sock")
        // The config names another path: with a socket passed in, the daemon must not bind its own.
        let daemon = try DaemonProcess(
            config: Self.config(steps: ["frame"]) + "\n[socket]\npath = \"\(dir.file("unused.sock"))\"\n",
            socketPath: path,
            launcher: [activate, "--listen=\(path)"]
        )
        let client = try daemon.connect()
        #expect(try client.request(.ping) == .ok(id: 1))
        #expect(!FileManager.default.fileExists(atPath: dir.file("unused.sock")))
        #expect(daemon.log.contains("socket-activated"))
        #expect(daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: path), "the daemon never unlinks a socket it did not create")
    }
}

@MainActor @Suite struct PluginEnvironmentEndToEndTests {
    @Test func pluginsDoNotInheritTheServiceManagersVariables() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let notify = try NotifyListener(path: dir.file("notify"))
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("probe", #"echo "notify=${NOTIFY_SOCKET:-unset} watchdog=${WATCHDOG_USEC:-unset} step=$SPLASHD_STEP" > "$SPLASHD_OPT_OUT""#)
        let daemon = try DaemonProcess(
            config: TestConfig.instantSplash + """
                [[step]]
                id = "probe"
                plugin = "probe"
                [step.options]
                out = "\(dir.file("env"))"
                """,
            pluginDirectories: [plugins.directory],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "5000000"]
        )
        #expect(notify.waitFor(line: "STATUS=finished: home") != nil)
        #expect(dir.read("env") == "notify=unset watchdog=unset step=probe\n")
        #expect(daemon.stop() == 0)
    }
}

@MainActor @Suite struct DescriptorLimitTests {
    @Test func theDaemonRaisesItsSoftDescriptorLimitToTheHardOne() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            print("skipped: prlimit is not installed")
            return
        }
        let daemon = try DaemonProcess(
            config: SystemdEndToEndTests.config(steps: ["frame"]),
            launcher: ["/usr/bin/prlimit", "--nofile=256:4096", "--"]
        )
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["4096", "4096"])
    }
}
