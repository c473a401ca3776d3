import Foundation
import SplashClient
import SplashCore
import Synchronization
import TestSupport
import Testing

/// Only the owner of a bus name speaks for it (design §18): on a private bus with Debian's own
/// system-bus policy, an unprivileged user sends splashd's connections signals that look like
/// systemd's (the app's unit failed) and RAUC's (an install at 55 %, then Completed), unicast to
/// splashd's unique names, where a match on the well-known sender does not hold. Before the check,
/// the spoof restarted the app three times, ended in "The app keeps stopping" and put up
/// "Installing update…" at 55 %.
@MainActor @Suite struct BusTrustEndToEndTests {
    static let unit = "kiosk-app.service"

    /// fake_systemd.py on `bus`, its calls collected.
    final class FakeSystemd: @unchecked Sendable {
        let process = Process()
        let input = Pipe()
        let calls = Mutex<[String]>([])
        let ready = DispatchSemaphore(value: 0)

        init(bus: PrivateBus, unit: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["\(Binaries.packageRoot)/Tests/harness/fake_systemd.py", bus.address, unit]
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = input
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.detachNewThread { [self] in
                var line: [UInt8] = []
                while let byte = try? out.fileHandleForReading.read(upToCount: 1)?.first {
                    guard byte == UInt8(ascii: "\n") else {
                        line.append(byte)
                        continue
                    }
                    let text = String(decoding: line, as: UTF8.self)
                    line = []
                    if text == "ready" { ready.signal() } else { calls.withLock { $0.append(text) } }
                }
            }
            guard ready.wait(timeout: .now() + 20) == .success else { throw NotReady() }
        }

        struct NotReady: Error {}

        func count(_ call: String) -> Int { calls.withLock { $0.count(where: { $0 == "call \(call)" }) } }

        /// Drives the unit: `exit`, `fail` or `stop`.
        func send(_ command: String) { input.fileHandleForWriting.write(Data((command + "\n").utf8)) }

        func close() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func anUnprivilegedUsersSpoofedSignalsChangeNothing() async throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            print("skipped: needs root (to own systemd's name under the system policy) and setpriv")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The bus's socket is reachable by the other user.
        chmod(directory.path, 0o755)
        let bus = try PrivateBus(in: directory, systemPolicy: true)
        defer { bus.close() }
        let systemd = try FakeSystemd(bus: bus, unit: Self.unit)
        defer { systemd.close() }
        let daemon = try DaemonProcess(config: TestConfig.instantSplash + """
            timeout = "10m"

            [app]
            unit = "\(Self.unit)"
            max_restarts = 2
            restart_window = "5m"

            [update]
            rauc = true
            """, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        let renderer = try daemon.connect()
        let done = try renderer.follow(timeout: .seconds(30) * waitScale) { state, _ in state.phase != .finished }
        #expect(done.phase == .finished)
        #expect(await waitUntil { systemd.count("StartUnit \(Self.unit)") == 1 }, "the app started: \(systemd.calls.withLock { $0 })")
        #expect(daemon.waitForLog("following RAUC's installer"))
        #expect(await waitUntil { daemon.log.contains("app unit active/running") }, "the watch saw the app run")

        // Five rounds from nobody, to every connection of splashd's.
        let spoof = try ProcessRunner.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "\(Binaries.packageRoot)/Tests/harness/spoof_signals.py",
             bus.address, "\(daemon.pid)", "5", Self.unit])
        #expect(spoof.status == 0, "\(spoof.stderr)")
        #expect(spoof.stdout.contains("to 2 connections") || spoof.stdout.contains("to 3 connections"), "splashd's watches found: \(spoof.stdout)")
        #expect(daemon.waitForLog("refused a signal in systemd's name from"), "\(daemon.log.suffix(2000))")
        #expect(daemon.waitForLog("refused a signal in RAUC's name from"), "\(daemon.log.suffix(2000))")

        #expect(!daemon.log.contains("RAUC: 55% Spoofed") && !daemon.log.contains("an update began"), "RAUC's spoofed signals were taken")
        let now = try daemon.connect().request(.state)
        guard case .state(let state) = now else {
            Issue.record("no state: \(now)")
            return
        }
        #expect(state.mode == .launch && state.update == nil, "no update view: \(String(describing: state.update))")
        #expect(state.phase == .finished, "no relaunch for a crash that was not: \(state.phase)")

        #expect(systemd.calls.withLock { $0 } == ["call StartUnit \(Self.unit)"], "the spoofed crash brought no start or restart")
        #expect(!daemon.log.contains("app unit failed"), "the spoofed states were taken")

        // Then systemd itself: the app exits, and the daemon starts it again. Its signals come
        // after the spoofed ones, so once that call is seen every spoofed one has been handled.
        systemd.send("exit")
        #expect(await waitUntil { systemd.calls.withLock { $0.count } >= 2 }, "\(systemd.calls.withLock { $0 })")
        let calls = systemd.calls.withLock { $0 }
        #expect(calls.count == 2 && calls[0] == "call StartUnit \(Self.unit)", "only the real exit brought the app back: \(calls)")
        #expect(!daemon.log.contains("app-crash-loop") && !daemon.log.contains("keeps stopping"))
        // Logged a few times, not 40.
        #expect(daemon.logLines(containing: "refused a signal in").count <= 12)
        #expect(daemon.stop() == 0)
    }
}
