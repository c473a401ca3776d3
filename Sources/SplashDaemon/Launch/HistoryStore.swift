public import Logging
public import SplashCore
import SplashPlugins
import SplashSupport

/// The last launches, kept in the state directory (`history.jsonl`), one JSON record per line.
///
/// A finished launch's line is appended to the file and fsynced: one record written per launch,
/// not the whole history (twenty records of a 200-step graph are about 900 KB). The file is
/// replaced atomically (written aside, fsynced, renamed) instead when it is first created, when
/// one more line would take it past twice the history's capacity, and when it was found damaged
/// (a torn last line, unreadable lines) or an append failed. A power cut during an append costs
/// at most that launch's line, which reading skips.
public actor HistoryStore {
    public let path: String
    private let logger: Logger
    /// What the file holds, as far as this store knows: its number of lines, and the launch ids
    /// of its newest records, oldest first. nil when unknown or not fit to append to: the next
    /// save replaces the file.
    private var file: (lines: Int, launches: [String])?

    public init(stateDirectory: String, logger: Logger) {
        path = "\(stateDirectory)/history.jsonl"
        self.logger = logger
    }

    /// Reads the file; a missing one is an empty history, unreadable lines are skipped and logged.
    public func load() -> HistoryLog {
        guard let bytes = AtomicFile.read(path) else {
            file = nil
            return HistoryLog()
        }
        let decoded = HistoryLog.decode(bytes)
        if decoded.malformedLines > 0 {
            logger.warning("history: skipped \(decoded.malformedLines) unreadable line(s) in \(path)")
        }
        if decoded.malformedLines == 0, bytes.isEmpty || bytes.last == 0x0A {
            file = (bytes.count(where: { $0 == 0x0A }), decoded.log.records.map(\.launch))
        } else {
            file = nil
        }
        return decoded.log
    }

    /// Brings the file up to `log`, whose newest record is the launch that just finished.
    ///
    /// Appends the records the file does not have yet; replaces the file when appending will
    /// not do. Saves come in the order launches finished (`LaunchHistory` runs them one after
    /// another).
    public func save(_ log: HistoryLog) {
        guard log.last != nil else { return }
        let launches = log.records.map(\.launch)
        if let file, let lastInFile = file.launches.last {
            if let position = launches.lastIndex(of: lastInFile) {
                // The newest record again (a launch saved twice) goes in again: reading keeps
                // the later of two lines with the same launch id.
                let fresh = position == launches.count - 1 ? log.records[position...] : log.records[(position + 1)...]
                if file.lines + fresh.count <= 2 * log.capacity, append(fresh) {
                    self.file = (file.lines + fresh.count, Array((file.launches + fresh.map(\.launch)).suffix(log.capacity)))
                    return
                }
            }
        }
        do {
            try AtomicFile.write(log.encoded(), to: path, mode: 0o600)
            file = (log.records.count, launches)
        } catch {
            file = nil
            logger.error("history not saved: \(error)")
        }
    }

    /// Appends `records` as lines and fsyncs; false (and logged) when that failed, which leaves
    /// the file to be replaced by the next save.
    private func append(_ records: ArraySlice<LaunchRecord>) -> Bool {
        var bytes: [UInt8] = []
        for record in records {
            bytes.append(contentsOf: record.jsonLine())
            bytes.append(0x0A)
        }
        do {
            try AtomicFile.append(bytes, to: path)
            return true
        } catch {
            file = nil
            logger.warning("history: \(error); the file will be replaced")
            return false
        }
    }
}
