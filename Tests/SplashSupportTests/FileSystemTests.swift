#if canImport(Glibc)
import Glibc
#endif
import SplashSupport
import Testing
import TestSupport

/// The one bounded reader every program uses: only regular files, within the limit, never
/// waiting on a FIFO (splashd-otel's cursor, a theme, a config, `/proc`).
@Suite struct FileSystemTests {
    @Test func readsARegularFileAndProcFilesWhoseSizeIsZero() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-fs")
        defer { directory.remove() }
        let path = try directory.write("cursor.json", "{\"exported\":[]}\n")
        #expect(try FileSystem.readFile(path, limit: 64) == Array("{\"exported\":[]}\n".utf8))
        // /proc says 0 for its files' size: they are read to their end all the same.
        let stat = try FileSystem.readFile("/proc/self/stat", limit: 4096)
        #expect(stat.starts(with: Array("\(getpid()) (".utf8)))
    }

    @Test func refusesAFIFOWithoutWaitingForAWriter() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-fs")
        defer { directory.remove() }
        let path = directory.file("cursor.json")
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: FileSystem.Failure.self) { try FileSystem.readFile(path, limit: 1 << 20) }
        // What the exporter and the built-ins read their state with: nil, at once.
        #expect(AtomicFile.read(path) == nil)
    }

    @Test func refusesADirectoryAndAFileOverTheLimitWithTheReason() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-fs")
        defer { directory.remove() }
        #expect { try FileSystem.readFile(directory.path, limit: 1 << 20) } throws: { error in
            (error as? FileSystem.Failure)?.reason == "not a regular file"
        }
        let path = try directory.write("big", String(repeating: "x", count: 2048))
        #expect { try FileSystem.readFile(path, limit: 1024) } throws: { error in
            (error as? FileSystem.Failure)?.reason == "larger than 1 KiB (the limit)"
        }
        #expect(AtomicFile.read(path, limit: 1024) == nil)
        #expect(AtomicFile.read(path, limit: 2048)?.count == 2048)
    }
}
