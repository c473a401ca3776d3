import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// The update and shutdown views against the real daemon: psplash's FIFO written with the bytes
/// its real writers send, psplash-write, `splashctl update` and `shutdown`, and hostile writers.
@MainActor @Suite final class UpdateModeEndToEndTests {
    /// Kept for the test's length (a directory goes with its value).
    var fifoDirectories: [TemporaryDirectory] = []

    /// The launch waits on first-frame, in `loading` however slow the machine.
    nonisolated static func config(endView: String = "0s") -> String {
        TestConfig.instantSplash + """
        timeout = "10m"

        [update]
        psplash_fifo = true
        end_view = "\(endView)"

        [[step]]
        id = "first-frame"
        plugin = "signal"
        """
    }

    /// A daemon reading psplash's FIFO in its own directory.
    func daemon(endView: String = "0s") throws -> (DaemonProcess, fifo: String) {
        let directory = try TemporaryDirectory()
        fifoDirectories.append(directory)
        let daemon = try DaemonProcess(config: Self.config(endView: endView), environment: ["PSPLASH_FIFO_DIR": directory.path])
        let fifo = directory.file("psplash_fifo")
        #expect(daemon.waitForLog("reading psplash's FIFO \(fifo)"), "\(daemon.log)")
        return (daemon, fifo)
    }

    /// Writes `bytes` in one write, as a writer that opens the FIFO, writes and closes.
    func write(_ bytes: [UInt8], to fifo: String) throws {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0, "the FIFO has a reader")
        defer { close(fd) }
        #expect(bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    func write(_ text: String, to fifo: String) throws { try write(Array(text.utf8), to: fifo) }

    /// The first state (the latest one on subscribing, or a later one) for which `done` holds.
    @discardableResult
    func until(_ connection: SplashConnection, _ done: (StateMessage) -> Bool) throws -> StateMessage {
        try connection.follow(timeout: eventDeadline * waitScale) { state, _ in !done(state) }
    }

    @Test func swupdatesBytesDriveTheUpdateViewAndHoldTheLaunch() throws {
        let (daemon, fifo) = try daemon()
        let renderer = try daemon.connect()
        let app = try daemon.connect()
        #expect(try until(renderer) { $0.phase == .loading }.mode == .launch)
        // swupdate-progress -p (Debian 12's 2022.12), as read from its FIFO: every command ends in
        // a NUL, several often come in one read.
        try write("MSG step 1 of 1\0", to: fifo)
        let begun = try until(renderer) { $0.mode == .update }
        #expect(begun.update == UpdateStatus(source: .psplash, message: "step 1 of 1"))
        #expect(daemon.waitForLog("event=update-started"))
        try write("PROGRESS 0\0MSG step 1 of 1\0", to: fifo)
        try write("PROGRESS 42\0MSG step 1 of 1\0", to: fifo)
        #expect(try until(renderer) { $0.update?.progress == 0.42 }.update?.message == "step 1 of 1")
        // The launch's work ends under the update: it does not dismiss.
        #expect(try app.request(.complete(step: "first-frame")) == .ok(id: 1))
        let held = try until(renderer) { $0.steps.first?.status == .succeeded }
        #expect(held.phase == .loading && held.mode == .update)
        try write("PROGRESS 100\0MSG step 2 of 1\0", to: fifo)
        try write("PROGRESS 0\0", to: fifo)
        try write("MSG SUCCESS\0", to: fifo)
        #expect(try until(renderer) { $0.update?.message == "SUCCESS" }.phase == .loading)
        // Five seconds later in SWUpdate: QUIT. The view goes, and the launch goes on.
        try write("QUIT\0", to: fifo)
        let after = try until(renderer) { $0.mode == .launch }
        #expect(after.update == nil)
        #expect(try until(renderer) { $0.phase == .finished }.mode == .launch)
        #expect(daemon.waitForLog("the update's writer said QUIT"))
        #expect(daemon.logLines(containing: "phase loading -> dismissing").count == 1)
        // The history says the update held the launch.
        let history = try ProcessRunner.run(Binaries.splashctl, ["--socket", daemon.socketPath, "history"])
        #expect(history.stdout.contains("home +update(psplash)"), "\(history.stdout)")
        #expect(daemon.stop() == 0)
    }

    @Test func psplashWriteAndEchoWorkUnchanged() throws {
        let (daemon, fifo) = try daemon()
        let renderer = try daemon.connect()
        // The package's psplash-write is the splashd binary under that name.
        let links = try TemporaryDirectory()
        let psplashWrite = links.file("psplash-write")
        try FileManager.default.createSymbolicLink(atPath: psplashWrite, withDestinationPath: Binaries.splashd)
        let directory = (fifo as NSString).deletingLastPathComponent
        let written = try ProcessRunner.run(psplashWrite, ["PROGRESS 30"], environment: ["PSPLASH_FIFO_DIR": directory])
        #expect(written.status == 0 && written.stdout.isEmpty && written.stderr.isEmpty)
        #expect(try until(renderer) { $0.update?.progress == 0.3 }.mode == .update)
        let viaSplashctl = try ProcessRunner.run(Binaries.splashctl, ["psplash-write", "MSG Copying image"], environment: ["PSPLASH_FIFO_DIR": directory])
        #expect(viaSplashctl.status == 0)
        #expect(try until(renderer) { $0.update?.message == "Copying image" }.update?.progress == 0.3)
        // As psplash's: no reader, no word and status 255; not one argument, a line and 255.
        let nowhere = try ProcessRunner.run(psplashWrite, ["QUIT"], environment: ["PSPLASH_FIFO_DIR": links.path])
        #expect(nowhere.status == 255 && nowhere.stderr.isEmpty)
        let two = try ProcessRunner.run(psplashWrite, ["MSG", "a"], environment: ["PSPLASH_FIFO_DIR": directory])
        #expect(two.status == 255 && two.stderr == "Wrong number of arguments\n")
        // echo: a newline ends a command too.
        try write("QUIT\n", to: fifo)
        #expect(try until(renderer) { $0.mode == .launch }.update == nil)
        #expect(daemon.stop() == 0)
    }

    @Test func hostileWritersGetALogLineAndNothingElse() throws {
        let (daemon, fifo) = try daemon()
        let renderer = try daemon.connect()
        // A writer that never closes holds nothing up: others write beside it.
        let lingering = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(lingering >= 0)
        defer { close(lingering) }
        #expect(Foundation.write(lingering, "PROGRESS 10\0", 12) == 12)
        #expect(try until(renderer) { $0.update?.progress == 0.1 }.mode == .update)
        // 10 MB with no end, from a writer that keeps writing: dropped as it comes, bounded.
        let huge = [UInt8]("MSG ".utf8) + [UInt8](repeating: UInt8(ascii: "A"), count: 10 << 20)
        let blocking = open(fifo, O_WRONLY | O_CLOEXEC)
        try #require(blocking >= 0)
        var offset = 0
        while offset < huge.count {
            let n = huge[offset...].withUnsafeBytes { Foundation.write(blocking, $0.baseAddress, $0.count) }
            try #require(n > 0)
            offset += n
        }
        #expect(Foundation.write(blocking, "\0PROGRESS 20\0", 13) == 13)
        close(blocking)
        #expect(try until(renderer) { $0.update?.progress == 0.2 }.update?.message == nil, "the long message was not taken")
        #expect(daemon.waitForLog("a command of \(huge.count) bytes, over psplash's 2048: ignored"))
        // Binary and terminal escapes: dropped from the state (docs/protocol.md, "Texts"), escaped in the log.
        try write([UInt8]("MSG ".utf8) + [0x1B] + Array("[2Jred".utf8) + [0x07, 0xFF, 0], to: fifo)
        let binary = try until(renderer) { $0.update?.message?.hasSuffix("red\u{FFFD}") == true }
        #expect(binary.update?.message == "[2Jred\u{FFFD}")
        #expect(daemon.waitForLog("MSG \\x1b[2Jred\\x07"), "\(daemon.log.suffix(2000))")
        #expect(!daemon.log.contains("\u{1B}"), "no raw escape reaches the log")
        // What psplash crashes on.
        try write("PROGRESS\0\0   \0NOPE 1\0", to: fifo)
        #expect(daemon.waitForLog("ignored PROGRESS without an argument"))
        #expect(daemon.waitForLog("ignored an empty command"))
        #expect(daemon.waitForLog("ignored an unknown command"))
        try write("QUIT\0", to: fifo)
        #expect(try until(renderer) { $0.mode == .launch }.update == nil)
        #expect(daemon.isRunning)
        #expect(daemon.stop() == 0)
    }

    @Test(arguments: ["anyone", "regular", "stranger"])
    func aFIFOSomeoneElseMadeIsNotRead(_ kind: String) throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("psplash_fifo")
        switch kind {
        case "anyone":
            #expect(mkfifo(fifo, 0o600) == 0 && chmod(fifo, 0o666) == 0)
        case "regular":
            _ = try directory.write("psplash_fifo", "PROGRESS 50\n")
        default:
            #expect(mkfifo(fifo, 0o600) == 0)
            try #require(getuid() == 0, "chown needs root")
            #expect(chown(fifo, 65534, 65534) == 0)
        }
        let daemon = try DaemonProcess(config: Self.config(), environment: ["PSPLASH_FIFO_DIR": directory.path])
        let reason = ["anyone": "may be written by anyone (mode 666)", "regular": "is not a FIFO", "stranger": "belongs to user 65534, neither splashd's nor root's"][kind]!
        #expect(daemon.waitForLog("psplash's FIFO: \(fifo) \(reason): not read"), "\(daemon.log)")
        guard case .state(let state) = try daemon.connect().request(.state) else { Issue.record("no state"); return }
        #expect(state.mode == .launch)
        #expect(daemon.isRunning)
        #expect(daemon.stop() == 0)
    }

    @Test func splashctlUpdateAndShutdown() throws {
        let (daemon, _) = try daemon(endView: "10m")
        let renderer = try daemon.connect()
        func splashctl(_ arguments: String...) throws -> CommandResult {
            try ProcessRunner.run(Binaries.splashctl, ["--socket", daemon.socketPath] + arguments)
        }
        #expect(try splashctl("update", "--progress", "40", "--message", "Copying image").status == 0)
        let running = try until(renderer) { $0.update?.message == "Copying image" }
        #expect(running.update == UpdateStatus(source: .splashctl, progress: 0.4, message: "Copying image"))
        #expect(try splashctl("update", "--failed", "disk full").status == 0)
        let failed = try until(renderer) { $0.update?.result == .failed }
        #expect(failed.update?.error == "disk full" && failed.mode == .update)
        #expect(daemon.waitForLog("the update failed after"))
        #expect(try splashctl("update").status == 64, "nothing to say is a usage error")
        #expect(try splashctl("update", "--progress", "140").status == 64)
        #expect(try splashctl("update", "--clear").status == 0)
        #expect(try until(renderer) { $0.mode == .launch }.update == nil)
        // A shutdown holds the launch for good.
        #expect(try splashctl("shutdown", "--reboot").status == 0)
        #expect(try until(renderer) { $0.mode == .shutdown }.shutdown == .reboot)
        #expect(daemon.waitForLog("event=shutdown"))
        #expect(try splashctl("complete", "first-frame").status == 0)
        let held = try until(renderer) { $0.steps.first?.status == .succeeded }
        #expect(held.phase == .loading && held.mode == .shutdown)
        #expect(daemon.stop() == 0)
    }
}
