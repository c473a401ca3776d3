import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// psplash's FIFO as a hostile or careless local user meets it (issue 48, items 7 to 9): a FIFO
/// its group may write, one re-moded or replaced while splashd reads it, `psplash-write` pointed
/// at a regular file through a link, and a writer flooding the journal.
@MainActor @Suite final class PsplashFIFOTrustTests {
    /// Kept for the test's length (a directory goes with its value).
    var directories: [TemporaryDirectory] = []

    /// A new directory for the FIFO, kept for the test's length.
    func fifoDirectory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        directories.append(directory)
        return directory
    }

    /// A daemon reading psplash's FIFO in `directory`, once it reads it.
    func daemon(in directory: TemporaryDirectory) throws -> DaemonProcess {
        let daemon = try DaemonProcess(config: UpdateModeEndToEndTests.config(), environment: ["PSPLASH_FIFO_DIR": directory.path])
        #expect(daemon.waitForLog("reading psplash's FIFO \(directory.file("psplash_fifo"))"), "\(daemon.log)")
        return daemon
    }

    /// The package's `psplash-write` (a link named so to `splashd`), run with the FIFO in `directory`.
    func psplashWrite(_ command: String, in directory: TemporaryDirectory) throws -> CommandResult {
        let links = try fifoDirectory()
        let program = links.file("psplash-write")
        try FileManager.default.createSymbolicLink(atPath: program, withDestinationPath: Binaries.splashd)
        return try ProcessRunner.run(program, [command], environment: ["PSPLASH_FIFO_DIR": directory.path])
    }

    func until(_ connection: SplashConnection, _ done: (StateMessage) -> Bool) throws -> StateMessage {
        try connection.follow(timeout: eventDeadline * waitScale) { state, _ in !done(state) }
    }

    /// The FIFO's inode and mode, as `lstat` sees the name.
    func identity(_ path: String) -> (inode: UInt, mode: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt(info.st_ino), info.st_mode)
    }

    // MARK: Item 8: writable by its owner only, checked on every open, a change noticed

    /// Found: a FIFO of mode 0620 in a group another user belongs to was obeyed, though that
    /// user's socket `update` is denied.
    @Test func aFIFOItsGroupMayWriteIsNotRead() throws {
        let directory = try fifoDirectory()
        let fifo = directory.file("psplash_fifo")
        #expect(mkfifo(fifo, 0o600) == 0 && chmod(fifo, 0o620) == 0)
        let daemon = try DaemonProcess(config: UpdateModeEndToEndTests.config(), environment: ["PSPLASH_FIFO_DIR": directory.path])
        // Whichever it says first: that it reads the FIFO, or that it does not.
        #expect(daemon.waitForLog("psplash's FIFO"), "\(daemon.log)")
        #expect(daemon.waitForLog("psplash's FIFO: \(fifo) may be written by its group (mode 620): not read", timeout: .seconds(2)), "\(daemon.log)")
        #expect(daemon.logLines(containing: "reading psplash's FIFO").isEmpty, "\(daemon.log)")
        guard case .state(let state) = try daemon.connect().request(.state) else { Issue.record("no state"); return }
        #expect(state.mode == .launch)
        #expect(daemon.stop() == 0)
    }

    /// Found: a `chmod 0666` while splashd read the FIFO went unnoticed, and anyone's writes were
    /// then obeyed. Now it is said, and a new FIFO (its owner's alone) takes the name.
    @Test func aFIFORemodedWhileReadIsMadeAgain() throws {
        let directory = try fifoDirectory()
        let fifo = directory.file("psplash_fifo")
        let daemon = try daemon(in: directory)
        let renderer = try daemon.connect()
        let before = try #require(identity(fifo))
        #expect(chmod(fifo, 0o666) == 0)
        #expect(daemon.waitForLog("psplash's FIFO \(fifo) may be written by anyone (mode 666): no longer read", timeout: .seconds(5)), "\(daemon.log)")
        #expect(daemon.waitForLog("reading psplash's FIFO \(fifo)", count: 2), "\(daemon.log)")
        let after = try #require(identity(fifo))
        #expect(after.inode != before.inode, "a new FIFO")
        #expect(after.mode & S_IFMT == S_IFIFO && after.mode & 0o777 == 0o600)
        // The new one is read.
        #expect(try psplashWrite("MSG after", in: directory).status == 0)
        #expect(try until(renderer) { $0.update?.message == "after" }.mode == .update)
        #expect(daemon.stop() == 0)
    }

    /// Found: a FIFO replaced while splashd read it was never noticed: splashd read the old one,
    /// and psplash-write, finding no reader on the new one, exited 255. Now the new one is read
    /// when it is fit, and one that is not (a regular file) gives way to a new FIFO.
    @Test(arguments: ["fifo", "regular"])
    func aFIFOReplacedWhileReadIsNoticed(_ replacement: String) throws {
        let directory = try fifoDirectory()
        let fifo = directory.file("psplash_fifo")
        let daemon = try daemon(in: directory)
        let renderer = try daemon.connect()
        let staged = directory.file("staged")
        if replacement == "fifo" {
            #expect(mkfifo(staged, 0o600) == 0)
        } else {
            _ = try directory.write("staged", "PROGRESS 50\n")
        }
        #expect(rename(staged, fifo) == 0)
        #expect(daemon.waitForLog("psplash's FIFO \(fifo) was replaced", timeout: .seconds(5)), "\(daemon.log)")
        #expect(daemon.waitForLog("reading psplash's FIFO \(fifo)", count: 2), "\(daemon.log)")
        if replacement == "regular" {
            #expect(daemon.logLines(containing: "psplash's FIFO: \(fifo) is not a FIFO").count == 1, "\(daemon.log)")
            #expect(daemon.logLines(containing: "psplash's FIFO \(fifo): made a new one").count == 1, "\(daemon.log)")
        }
        let written = try psplashWrite("MSG replaced", in: directory)
        #expect(written.status == 0, "the new FIFO has a reader")
        #expect(try until(renderer) { $0.update?.message == "replaced" }.mode == .update)
        #expect(daemon.stop() == 0)
    }

    // MARK: Item 9: psplash-write writes only into a FIFO

    /// Found: with the FIFO's path a link to a regular file, `psplash-write "MSG x"` exited 0 and
    /// overwrote the file's first bytes. Now it writes nothing and exits as when nothing reads.
    @Test(arguments: ["link", "regular"])
    func psplashWriteWritesOnlyIntoAFIFO(_ kind: String) throws {
        let directory = try fifoDirectory()
        let target = try directory.write("precious", "the first bytes of a file\n")
        if kind == "link" {
            try FileManager.default.createSymbolicLink(atPath: directory.file("psplash_fifo"), withDestinationPath: target)
        } else {
            _ = try directory.write("psplash_fifo", "not a FIFO\n")
        }
        let written = try psplashWrite("MSG x", in: directory)
        #expect(written.status == 255 && written.stdout.isEmpty && written.stderr.isEmpty, "\(written)")
        #expect(directory.read("precious") == "the first bytes of a file\n")
        if kind == "regular" { #expect(directory.read("psplash_fifo") == "not a FIFO\n") }
    }

    // MARK: Item 7: a flood of MSGs is folded in the log

    /// Found: 1,000,000 distinct `MSG`s were 184,000 journal lines in 8 s, and journald then
    /// dropped splashd's other records. Now the first few a minute are logged, then a count.
    @Test func aFloodOfMessagesIsFoldedInTheLog() throws {
        let directory = try fifoDirectory()
        let fifo = directory.file("psplash_fifo")
        let daemon = try daemon(in: directory)
        let renderer = try daemon.connect()
        let started = ContinuousClock.now
        let fd = open(fifo, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        // One write a command, as a writer that writes each as it comes: splashd reads them in
        // many small reads, each one's last MSG and PROGRESS a line before.
        let flood = 50_000
        for index in 1...flood {
            let command = Array((index % 2 == 0 ? "MSG flood \(index)" : "PROGRESS \(index % 100)").utf8) + [0]
            #expect(command.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == command.count)
        }
        #expect(Foundation.write(fd, "QUIT\0", 5) == 5)
        close(fd)
        #expect(try until(renderer) { $0.mode == .launch && $0.update == nil }.phase == .loading)
        #expect(daemon.waitForLog("psplash's FIFO: QUIT"), "\(daemon.log.suffix(2000))")
        let minutes = Int((ContinuousClock.now - started) / .seconds(60))
        let lines = daemon.logLines(containing: "psplash's FIFO: MSG ").count + daemon.logLines(containing: "psplash's FIFO: PROGRESS ").count
        let folded = daemon.logLines(containing: "psplash's FIFO: ").filter { $0.contains(" more MSG lines were not logged") || $0.contains(" more PROGRESS lines were not logged") }
        print("a flood of \(flood) commands: \(lines) MSG and PROGRESS lines, \(folded.count) count lines: \(folded.map { $0.suffix(80) })")
        // Five of each a minute, in each minute the flood touched; their counts told at the QUIT.
        #expect(lines <= 2 * 5 * (minutes + 2), "\(lines) lines for \(flood) commands")
        #expect(folded.count >= 1 && folded.count <= 2 * (minutes + 2), "\(folded)")
        #expect(folded.allSatisfy { $0.hasSuffix("were not logged (more than 5 within 1m)") }, "\(folded)")
        #expect(daemon.stop() == 0)
    }
}
