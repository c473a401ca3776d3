import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// Bad input, slow clients and permissions against the real daemon.
@MainActor @Suite struct ProtocolEndToEndTests {
    /// A launch held by a signal step, in `loading` for as long as a test needs however slow the
    /// machine (no soft timeout turns it into `error`).
    static let holdingConfig = """
        [splash]
        min_display = "0ms"
        timeout = "10m"

        [[step]]
        id = "hold"
        plugin = "signal"
        """

    @Test func garbageGetsBadRequestAndTheConnectionStaysUsable() throws {
        let daemon = try DaemonProcess(config: Self.holdingConfig)
        let client = try daemon.connect()
        for garbage in ["garbage", "[1,2,3]", #"{"cmd":"fly"}"#, "{\"cmd\":\u{0}}", #"{"cmd":"complete"}"#] {
            try client.sendRaw(Array((garbage + "\n").utf8))
            guard case .error(let error) = try client.receive(timeout: .seconds(5)) else {
                Issue.record("no error for \(garbage)")
                continue
            }
            #expect(error.code == .badRequest)
        }
        try client.sendRaw([0xFF, 0xFE, 0x00, 0x0A])
        guard case .error(let binary) = try client.receive(timeout: .seconds(5)) else {
            Issue.record("no error for binary garbage")
            return
        }
        #expect(binary.code == .badRequest)
        #expect(try client.request(.ping) == .ok(id: 1))
        #expect(daemon.isRunning)
    }

    @Test func oversizedLineIsRefusedAndClosedWhileOthersAreServed() throws {
        let daemon = try DaemonProcess(config: Self.holdingConfig)
        let bystander = try daemon.connect()
        let client = try daemon.connect()
        try client.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 70 * 1024))
        guard case .error(let error) = try client.receive(timeout: .seconds(5)) else {
            Issue.record("no line-too-long error")
            return
        }
        #expect(error.code == .lineTooLong)
        #expect(throws: ClientError.connectionClosed) { _ = try client.receive(timeout: .seconds(5)) }
        #expect(try bystander.request(.ping) == .ok(id: 1))
        #expect(daemon.isRunning)
    }

    @Test func aSubscriberThatNeverReadsDoesNotHoldBackAnother() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        // 400 state changes of ~32 KiB each (a message is cut to 1 KiB: the size is in 100 steps'
        // labels): far more than the socket buffers of a client that never reads.
        try plugins.add("quick", "exit 0")
        try plugins.add("chatty", """
            pad=$(head -c 16000 /dev/zero | tr '\\0' 'x')
            for i in $(seq 1 400); do
              echo "{\\"message\\":\\"update $i $pad\\"}"
              sleep 0.002
            done
            """)
        // The step has as long as it needs (not the default 30 s): taking in 6.4 MB took a debug
        // daemon 3.2 s here, and 71 to 92 s under qemu-user (the arm64 suite), where the step's
        // timeout failed the launch, and the test waited for a `finished` that could not come.
        let daemon = try DaemonProcess(
            config: TestConfig.splash(exitAnimation: "100ms") + """
                [[step]]
                id = "chatty"
                plugin = "chatty"
                timeout = "10m"
                """ + (0..<100).map {
                    "\n[[step]]\nid = \"later-\($0)\"\nplugin = \"quick\"\nafter = [\"chatty\"]\nlabel = \"\(String(repeating: "L", count: 200))\"\n"
                }.joined(),
            pluginDirectories: [plugins.directory]
        )
        let stuck = try daemon.connect()
        // The daemon is busy with the plugin's output from its start: more than a client's 5 s
        // for a sanitized one on a busy machine.
        #expect(try stuck.request(.subscribe, timeout: .seconds(30) * waitScale) == .ok(id: 1))
        let reader = try daemon.connect()
        var seqs: [UInt64] = []
        var bytes = 0
        // 6.4 MB of plugin output through the daemon: minutes for a sanitized one on a busy machine.
        let finished = try reader.follow(timeout: .seconds(120) * waitScale) { state, line in
            seqs.append(state.seq)
            bytes += line.count
            // A failed step means no `finished` will come: said at once, not after the wait.
            if let failed = state.steps.first(where: { $0.status == .failed }) {
                Issue.record("step \(failed.id) failed: \(failed.reason ?? "no reason")")
                return false
            }
            return state.phase != .finished
        }
        guard finished.phase == .finished else { return }
        // In order, none twice. (Not necessarily every one: a reader that the machine leaves
        // unscheduled for a while lags too, and is sent the latest state when it reads again.)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 > $0 }, "the reading subscriber's states in order")
        // What the stuck client was due is more than the socket's buffers hold (the daemon's send
        // buffer and the client's receive buffer, the kernel's defaults), however many states a
        // reader is sent: bursts are coalesced (at most one state per 16 ms), and a reader the
        // machine leaves unscheduled is sent fewer (over 60 here, 30 under qemu-user).
        let buffers = try ["wmem_default", "rmem_default"].reduce(0) { sum, name in
            let text = try String(contentsOfFile: "/proc/sys/net/core/\(name)", encoding: .utf8)
            return sum + (Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        #expect(buffers > 0 && bytes > buffers, "\(bytes) bytes of states, \(buffers) of socket buffers")
        // The stuck subscriber now reads: it skipped states but ends with the latest one.
        var stuckStates: [StateMessage] = []
        while stuckStates.last?.phase != .finished {
            guard case .state(let state) = try stuck.receive(timeout: .seconds(30) * waitScale) else { continue }
            stuckStates.append(state)
        }
        #expect(stuckStates.last?.seq == finished.seq)
        #expect(stuckStates.count < seqs.count)
        #expect(zip(stuckStates, stuckStates.dropFirst()).allSatisfy { $1.seq > $0.seq })
        #expect(daemon.isRunning)
    }

    @Test func checkRejectsACycleWithExitCode78AndNamesIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("cycle.toml", """
            [[step]]
            id = "a"
            plugin = "signal"
            after = ["b"]

            [[step]]
            id = "b"
            plugin = "signal"
            after = ["a"]
            """)
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(path):"))
        #expect(result.stderr.contains("a -> b -> a") || result.stderr.contains("b -> a -> b"))

        let good = try dir.write("good.toml", Self.holdingConfig)
        let ok = try ProcessRunner.run(Binaries.splashd, ["check", "--config", good])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("OK"))
    }

    @Test func anUnprivilegedPeerIsRefusedControlButMayWatch() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: needs root and setpriv to act as another user")
            return
        }
        let daemon = try DaemonProcess(config: Self.holdingConfig, socketMode: "0666", controlGroup: "users")
        chmod(daemon.directory.path, 0o755)
        func splashctl(_ groups: [String], _ arguments: [String]) throws -> CommandResult {
            let groupArguments = groups.isEmpty ? ["--clear-groups"] : ["--groups=\(groups.joined(separator: ","))"]
            return try ProcessRunner.run(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534"] + groupArguments + [Binaries.splashctl, "--socket", daemon.socketPath] + arguments
            )
        }
        let nobodyPing = try splashctl([], ["ping"])
        #expect(nobodyPing.status == 0, "\(nobodyPing.stderr)")
        let nobodyRetry = try splashctl([], ["retry"])
        #expect(nobodyRetry.status != 0)
        #expect(nobodyRetry.stderr.contains("needs root"))
        let nobodyComplete = try splashctl([], ["complete", "hold"])
        #expect(nobodyComplete.status != 0)
        // A member of control_group may; retry is then refused only for the phase.
        let memberRetry = try splashctl(["100"], ["retry"])
        #expect(memberRetry.status != 0)
        #expect(memberRetry.stderr.contains("only possible in phase error"))
        let memberComplete = try splashctl(["100"], ["complete", "hold"])
        #expect(memberComplete.status == 0, "\(memberComplete.stderr)")
    }

    @Test func aStaleSocketFileIsReplacedButALiveOneIsNot() throws {
        let first = try DaemonProcess(config: Self.holdingConfig)
        // A second daemon on the same live socket must refuse to start and leave it alone.
        let second = try ProcessRunner.run(
            Binaries.splashd,
            ["--config", first.directory.file("splashd.toml"), "--state-dir", first.directory.file("state")]
        )
        #expect(second.status == 69)
        #expect(second.stderr.contains("already serving"))
        #expect(try first.connect().request(.ping) == .ok(id: 1))
        // After a crash (SIGKILL) the socket file stays behind; the next start replaces it.
        kill(first.pid, SIGKILL)
        _ = first.stop()
        #expect(FileManager.default.fileExists(atPath: first.socketPath))
        let restarted = try DaemonProcess(config: Self.holdingConfig, socketPath: first.socketPath)
        #expect(try restarted.connect().request(.ping) == .ok(id: 1))
        // A clean stop removes the socket file the daemon created.
        #expect(restarted.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: first.socketPath))
    }
}
