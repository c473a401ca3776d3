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

    func load() -> ExportCursor {
        guard let bytes = AtomicFile.read(path, limit: 1 << 20) else { return ExportCursor() }
        do {
            return try ExportCursor(bytes: bytes)
        } catch {
            // Kept aside, not lost; the launches in splashd's history may then be sent again.
            let aside = path + ".unreadable"
            rename(path, aside)
            logger.error("the export cursor \(path) is unreadable (\(error)); moved to \(aside), starting anew")
            return ExportCursor()
        }
    }

    func save(_ cursor: ExportCursor) {
        do {
            try AtomicFile.write(cursor.encoded(), to: path, mode: 0o644)
        } catch {
            logger.error("\(error): these launches may be exported again after a restart")
        }
    }
}
