import Foundation
import SplashPlugins
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
}
