import Foundation
import SplashCore
@testable import SplashDaemon
import Synchronization
import TestSupport
import Testing

/// `SystemdAppBus` with the real sd-bus against the fake systemd of Tests/harness/fake_systemd.py
/// on a private D-Bus (Debian's dbus-daemon, python3-dbus and python3-gi).
@Suite struct SystemdAppBusTests {
    /// A private bus with the fake systemd on it; stopped by `close`.
    final class FakeSystemd: @unchecked Sendable {
        let directory: TemporaryDirectory
        let bus: PrivateBus
        let systemd = Process()
        let input = Pipe()
        var address: String { bus.address }

        init(unit: String, options: [String]) throws {
            directory = try TemporaryDirectory()
            bus = try PrivateBus(in: directory)
            systemd.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            systemd.arguments = ["\(Binaries.packageRoot)/Tests/harness/fake_systemd.py", address, unit] + options
            let out = Pipe()
            systemd.standardOutput = out
            systemd.standardInput = input
            try systemd.run()
            let ready = Self.line(out)
            guard ready == "ready" else { throw NotReady(line: ready) }
        }

        struct NotReady: Error { var line: String }

        /// Drives the unit: `exit`, `fail` or `stop`.
        func send(_ command: String) {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
        }

        func close() {
            if systemd.isRunning {
                kill(systemd.processIdentifier, SIGKILL)
                systemd.waitUntilExit()
            }
            bus.close()
            directory.remove()
        }

        private static func line(_ pipe: Pipe) -> String {
            var bytes: [UInt8] = []
            while let byte = try? pipe.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
                bytes.append(byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The signals that came while the watch connected are older than the state it read then: a
    /// state of theirs delivered after it would say the unit is back in its start job, and a
    /// start queued then waits for a JobRemoved that has already gone by (the app watch stayed
    /// in `starting`, and the app's next death was not seen: a flaky browser test on CI).
    @Test func theStateReadOnConnectIsTheNewestAndTheStartsEndComesBeforeIt() async throws {
        let unit = "kiosk-app.service"
        let systemd = try FakeSystemd(unit: unit, options: ["--start-while-connecting"])
        defer { systemd.close() }
        let events = Mutex<[AppUnitEvent]>([])
        let stop = SystemdAppBus(address: systemd.address).watch(unit) { event in events.withLock { $0.append(event) } }
        defer { stop() }
        let connected = await waitUntil { events.withLock { $0.contains { if case .state = $0 { true } else { false } } } }
        #expect(connected, "no state from the watch: \(events.withLock { $0 })")
        // A change after the connect, so everything before it has been delivered.
        systemd.send("exit")
        let down = AppWatch.UnitState(activeState: "inactive", subState: "dead")
        #expect(await waitUntil { events.withLock { $0.last == .state(down) } }, "\(events.withLock { $0 })")
        #expect(
            events.withLock { $0 } == [
                .jobEnded(job: 1, result: "done"),
                .state(AppWatch.UnitState(activeState: "active", subState: "running")),
                .state(down),
            ])
    }

    /// A start over the same private bus returns systemd's job id.
    @Test func aStartReturnsItsJob() async throws {
        let unit = "kiosk-app.service"
        let systemd = try FakeSystemd(unit: unit, options: [])
        defer { systemd.close() }
        let bus = SystemdAppBus(address: systemd.address)
        #expect(try await bus.start(unit, restart: false) == 1)
        #expect(try await bus.start(unit, restart: true) == 2)
        await #expect(throws: AppUnitError.self) { try await bus.start("other.service", restart: false) }
    }
}
