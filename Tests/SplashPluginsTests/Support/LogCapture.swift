import Logging
import Synchronization

/// Collects log records in memory, so tests can look at what a plugin logged.
final class LogCapture: Sendable {
    /// One captured record, with the handler's and the call's metadata merged.
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Record]>([])

    /// Everything logged so far.
    var records: [Record] { storage.withLock { $0 } }

    /// A logger at `.trace` that writes here, with `metadata` set.
    func logger(metadata: Logger.Metadata = [:]) -> Logger {
        var logger = Logger(label: "splashd.tests") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        for (key, value) in metadata {
            logger[metadataKey: key] = value
        }
        return logger
    }

    /// The records whose message contains `text`.
    func records(containing text: String) -> [Record] {
        records.filter { $0.message.contains(text) }
    }

    fileprivate func append(_ record: Record) {
        storage.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, call in call }
            capture.append(Record(level: event.level, message: event.message.description, metadata: merged))
        }
    }
}
