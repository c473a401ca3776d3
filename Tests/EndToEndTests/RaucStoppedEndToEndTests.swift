import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import TestSupport
import Testing

/// An install RAUC never completes: RAUC killed or restarted mid-install (its name leaves the bus),
/// or the install aborted (`Operation` back to `idle` with no `Completed`). The view stayed at 30 %
/// for good, and every launch behind it was held. Tests/harness/fake_rauc.py plays RAUC: the real
/// one cannot be stopped at a chosen step.
@MainActor @Suite struct RaucStoppedEndToEndTests {
    /// The fake RAUC on a private bus; `send` drives it.
    final class FakeRauc: @unchecked Sendable {
        let process = Process()
        let input = Pipe()

        init(bus: PrivateBus) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["\(Binaries.packageRoot)/Tests/harness/fake_rauc.py", bus.address]
            let out = Pipe()
            process.standardOutput = out
            process.standardInput = input
            process.standardError = FileHandle.nullDevice
            try process.run()
            var line: [UInt8] = []
            while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
            guard String(decoding: line, as: UTF8.self) == "ready" else { throw NotReady() }
        }

        struct NotReady: Error {}

        func send(_ command: String) { input.fileHandleForWriting.write(Data((command + "\n").utf8)) }

        func close() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func endsFailed(after command: String) throws -> UpdateStatus? {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bus = try PrivateBus(in: directory)
        defer { bus.close() }
        let rauc = try FakeRauc(bus: bus)
        defer { rauc.close() }
        let daemon = try DaemonProcess(config: RaucEndToEndTests.config, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        #expect(daemon.waitForLog("following RAUC's installer"))
        let renderer = try daemon.connect()
        rauc.send("install")
        let running = try renderer.follow(timeout: .seconds(30) * waitScale) { state, _ in state.update?.progress != 0.3 }
        #expect(running.update?.message == "Copying image to rootfs.1" && running.update?.result == .running)
        rauc.send(command)
        let ended = try renderer.follow(timeout: .seconds(30) * waitScale) { state, _ in state.update?.result == .running }
        #expect(daemon.waitForLog("the update failed after"))
        #expect(daemon.stop() == 0)
        return ended.update
    }

    @Test func anInstallWhoseRAUCLeavesTheBusEndsFailed() throws {
        let update = try endsFailed(after: "exit")
        #expect(update?.result == .failed && update?.error == RaucInstaller.stopped, "\(String(describing: update))")
    }

    @Test func anInstallThatGoesIdleWithoutCompletedEndsFailed() throws {
        let update = try endsFailed(after: "idle")
        #expect(update?.result == .failed && update?.error == RaucInstaller.stopped, "\(String(describing: update))")
    }
}
