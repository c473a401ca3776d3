public import Logging
public import SplashCore
import SplashPlugins

/// The last launches, kept in the state directory (`history.jsonl`): bounded, one JSON record per
/// line, replaced atomically, so a power cut loses at most the launch that was being written.
public actor HistoryStore {
    public let path: String
    private let logger: Logger

    public init(stateDirectory: String, logger: Logger) {
        path = "\(stateDirectory)/history.jsonl"
        self.logger = logger
    }

    /// Reads the file; a missing one is an empty history, unreadable lines are skipped and logged.
    nonisolated public func load() -> HistoryLog {
        guard let bytes = AtomicFile.read(path) else { return HistoryLog() }
        let decoded = HistoryLog.decode(bytes)
        if decoded.malformedLines > 0 {
            logger.warning("history: skipped \(decoded.malformedLines) unreadable line(s) in \(path)")
        }
        return decoded.log
    }

    /// Replaces the file with `log`.
    public func save(_ log: HistoryLog) {
        do {
            try AtomicFile.write(log.encoded(), to: path, mode: 0o600)
        } catch {
            logger.error("history not saved: \(error)")
        }
    }
}
