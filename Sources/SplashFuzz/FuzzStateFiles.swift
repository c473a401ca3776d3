#if canImport(Glibc)
import Glibc
#endif
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashPlugins

/// The files splashd and its built-ins keep in the state directory, as a power cut or a hostile
/// image may leave them: read through the same code as at a launch's start, from a real file where
/// the reader takes a path.
enum FuzzStateFiles {
    /// A private directory for this process's files, made once: in memory when `/dev/shm` is
    /// there (on ext4 a rewritten file is flushed at close, which slowed these targets tenfold).
    static let directory: String = {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/splashd-fuzz-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp: \(errno)") }
        atexit { FuzzStateFiles.removeDirectory() }
        return String(cString: made)
    }()

    /// The files the targets write.
    static let names = ["session.json", "config.json", "config.json.etag"]

    /// Removes the directory and its files when the process exits.
    static func removeDirectory() {
        for name in names { unlink("\(directory)/\(name)") }
        rmdir(directory)
    }

    /// Replaces `name` in the directory with `bytes` and returns its path.
    static func file(_ name: String, _ bytes: UnsafeRawBufferPointer) -> String {
        let path = "\(directory)/\(name)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("open \(path): \(errno)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            guard written > 0 else { fatalError("write \(path): \(errno)") }
            offset += written
        }
        return path
    }

    /// `session.json`: a session read from it is written back to the same session.
    static func runSession(_ bytes: UnsafeRawBufferPointer) {
        let store = SessionStore(path: file("session.json", bytes))
        guard let session = try? store.read() else { return }
        session.fileBytes.withUnsafeBytes { _ = file("session.json", $0) }
        FuzzFailure.check((try? store.read()) == session, "a session does not survive being written back")
    }

    /// `launch-counter.json`: a record read from it encodes to the same record.
    static func runCounter(_ bytes: UnsafeRawBufferPointer) {
        guard let record = try? LaunchCounterRecord(bytes: Array(bytes)) else { return }
        let again = try? LaunchCounterRecord(bytes: record.bytes)
        FuzzFailure.check(again == record, "a counter record does not survive a round trip")
    }

    /// `history.jsonl`: what was decoded encodes to the same records, with no line lost; and each
    /// line as the `records` report carries it (a JSON value, read by splashd-otel): decoded
    /// without a crash, and every record survives the trip through its wire value.
    static func runHistory(_ bytes: UnsafeRawBufferPointer) {
        let decoded = HistoryLog.decode(bytes)
        let again = HistoryLog.decode(decoded.log.encoded())
        FuzzFailure.check(again.malformedLines == 0, "an encoded history has malformed lines")
        FuzzFailure.check(again.log.records == decoded.log.records, "a history does not survive a round trip")
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            if let value = try? JSONValue.parse(line) { _ = try? LaunchRecord(jsonValue: value) }
        }
        for record in decoded.log.records {
            FuzzFailure.check((try? LaunchRecord(jsonValue: record.jsonValue)) == record, "a record does not survive its wire value")
        }
    }

    /// `config.json` and `config.json.etag`: the first half of the input is the cache, the rest its
    /// ETag.
    static func runConfigCache(_ bytes: UnsafeRawBufferPointer) {
        let half = bytes.count / 2
        let cache = ConfigFetchCache(path: file("config.json", UnsafeRawBufferPointer(rebasing: bytes[..<half])))
        _ = file("config.json.etag", UnsafeRawBufferPointer(rebasing: bytes[half...]))
        _ = cache.load()
    }
}
