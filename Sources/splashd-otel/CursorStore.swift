#if canImport(Glibc)
    import Glibc
#endif
import Logging
import SplashSupport
import SplashTelemetry

/// The cursor's file: read at start, written atomically after each delivered export.
struct CursorStore {
    let path: String
    let logger: Logger

    /// The largest cursor read (its 256 ids take about 10 KiB).
    static let limit = 1 << 20

    /// The cursor kept, or a new one when there is none. Whatever stands at the path and cannot
    /// be read as a cursor (garbage, over 1 MiB, a FIFO, a directory, a symbolic link) is moved
    /// aside to `.unreadable` with an error logged, so the next save can take its place; the
    /// launches in splashd's history may then be sent again.
    func load() -> ExportCursor {
        let reason: String
        do {
            return try ExportCursor(bytes: FileSystem.readFile(path, limit: Self.limit, followLinks: false))
        } catch let error as FileSystem.Failure {
            if error.isNotFound { return ExportCursor() }
            reason = error.reason
        } catch {
            reason = "\(error)"
        }
        let aside = path + ".unreadable"
        if rename(path, aside) == 0 {
            logger.error("the export cursor \(path) cannot be read (\(reason)); moved to \(aside), starting anew")
        } else {
            let failure = String(cString: strerror(errno))
            logger.error("the export cursor \(path) cannot be read (\(reason)) nor moved to \(aside) (\(failure)); starting anew")
        }
        return ExportCursor()
    }

    func save(_ cursor: ExportCursor) {
        do {
            try AtomicFile.write(cursor.encoded(), to: path, mode: 0o644)
        } catch {
            logger.error("\(error): these launches may be exported again after a restart")
        }
    }
}
