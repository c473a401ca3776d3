#if canImport(Glibc)
import Glibc
#endif
import Logging
import SplashPlugins
import SplashSupport

/// Reads and writes the launch counter's file; a bad file is set aside, never lost silently.
struct LaunchCounterStore: Sendable {
    /// The counter file.
    let path: String

    /// Where a corrupt or unreadable counter file is kept for inspection.
    var corruptPath: String { "\(path).corrupt" }

    /// The largest counter file read; anything bigger is taken as corrupt.
    static let sizeLimit = 64 * 1024

    /// The stored record; a fresh one when there is none.
    ///
    /// A file that cannot be read or parsed is logged as an error, renamed to `corruptPath`
    /// (replacing an older one there) and counting starts afresh; the launch goes on.
    func load(logger: Logger) -> LaunchCounterRecord {
        var info = stat()
        if stat(path, &info) != 0 && errno == ENOENT {
            return LaunchCounterRecord()
        }
        let problem: String
        if let bytes = AtomicFile.read(path, limit: Self.sizeLimit) {
            do throws(LaunchCounterRecord.Corrupt) {
                return try LaunchCounterRecord(bytes: bytes)
            } catch {
                problem = error.description
            }
        } else {
            problem = "it cannot be read or is larger than \(Self.sizeLimit) bytes"
        }
        if rename(path, corruptPath) == 0 {
            logger.error(
                "launch counter file is corrupt: \(problem); kept it as \(corruptPath) and counting starts from 0",
                metadata: ["file": "\(path)"]
            )
        } else {
            let reason = String(cString: strerror(errno))
            logger.error(
                "launch counter file is corrupt: \(problem); cannot keep it as \(corruptPath) (\(reason)), it will be replaced and counting starts from 0",
                metadata: ["file": "\(path)"]
            )
        }
        return LaunchCounterRecord()
    }

    /// Replaces the file with `record` atomically.
    func save(_ record: LaunchCounterRecord) throws(AtomicFile.WriteError) {
        try AtomicFile.write(record.bytes, to: path, mode: 0o644)
    }
}
