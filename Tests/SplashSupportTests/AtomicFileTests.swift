import Foundation
import SplashSupport
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct AtomicFileTests {
    @Test func writeReplacesTheFileWithItsModeAndAppendAddsToIt() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let path = directory.file("state.json")
        // Larger than a pipe's buffer, so nothing here depends on a single write(2) taking it all.
        let first = [UInt8](repeating: UInt8(ascii: "a"), count: 256 * 1024)
        try AtomicFile.write(first, to: path, mode: 0o600)
        try AtomicFile.write(Array("new\n".utf8), to: path, mode: 0o600)
        try AtomicFile.append(Array("more\n".utf8), to: path)

        #expect(AtomicFile.read(path) == Array("new\nmore\n".utf8))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state.json"], "no temporary file is left")
    }

    /// A failed write names the system's reason, not whatever errno held before.
    @Test func aFailedWriteSaysWhy() throws {
        #expect {
            try AtomicFile.append(Array("x".utf8), to: "/dev/full")
        } throws: { error in
            (error as? AtomicFile.WriteError)?.description == "cannot write /dev/full: write: \(String(cString: strerror(ENOSPC)))"
        }
    }

    @Test func staleTemporariesAreRemovedAndNothingElse() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let dead = try deadProcessID()
        // A crash between writing the temporary and renaming it, in a process that is gone, in
        // this process (which has not written yet), and in a live process of another program.
        var parent = getppid()
        if parent <= 1 { parent = dead }
        let stale = [".history.jsonl.tmp-\(dead)", ".launch-counter.json.tmp-\(getpid())", ".session.json.tmp-\(parent)"]
        for name in stale { _ = try directory.write(name, "half") }
        let kept = ["history.jsonl", "history.jsonl.tmp-\(dead)", ".tmp-\(dead)", ".x.tmp-", ".x.tmp-12a", ".x.tmp-99999999999", ".x.tmp_\(dead)"]
        for name in kept { _ = try directory.write(name, "keep") }
        try FileManager.default.createDirectory(atPath: directory.file(".d.tmp-\(dead)"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.file(".l.tmp-\(dead)"), withDestinationPath: "history.jsonl")

        #expect(AtomicFile.removeStaleTemporaries(in: directory.path) == stale.sorted())
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == (kept + [".d.tmp-\(dead)", ".l.tmp-\(dead)"]).sorted())
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path).isEmpty)
    }

    @Test func aDirectorySharedWithOthersLosesOnlyTheNamedFilesTemporaries() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let dead = try deadProcessID()
        for name in [".config.json.tmp-\(dead)", ".config.json.etag.tmp-\(dead)", ".other.tmp-\(dead)"] {
            _ = try directory.write(name, "half")
        }
        let removed = AtomicFile.removeStaleTemporaries(in: directory.path, names: ["config.json", "config.json.etag"])
        #expect(removed == [".config.json.etag.tmp-\(dead)", ".config.json.tmp-\(dead)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [".other.tmp-\(dead)"])
    }

    @Test func aTemporaryOfALiveProcessOfTheSameProgramIsKept() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        // A live process that may still rename its temporary: one running the program named.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/exe")
        let name = ".history.jsonl.tmp-\(process.processIdentifier)"
        _ = try directory.write(name, "being written")
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path, program: program).isEmpty)
        #expect(directory.exists(name))
        // Not a splashd (the program this test runs): its temporary is stale.
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path) == [name])
    }
}
