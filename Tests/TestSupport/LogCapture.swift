public import Logging
import Synchronization

/// Collects log records in memory, so tests can look at what was logged (and what never was).
public final class LogCapture: Sendable {
    /// One captured record, with the handler's and the call's metadata merged.
    public struct Record: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata

        /// The message and every metadata value, as one text to search.
        public var text: String { ([message] + metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
    }

    private let storage = Mutex<[Record]>([])

    public init() {}

    /// Everything logged so far.
    public var records: [Record] { storage.withLock { $0 } }

    /// A logger at `.trace` that writes here, with `metadata` set.
    public func logger(metadata: Logger.Metadata = [:]) -> Logger {
        var logger = Logger(label: "splashd.tests") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        for (key, value) in metadata { logger[metadataKey: key] = value }
        return logger
    }

    /// The records whose message contains `text`.
    public func records(containing text: String) -> [Record] { records.filter { $0.message.contains(text) } }

    /// The records at `level` whose message contains `text`.
    public func records(_ level: Logger.Level, containing text: String) -> [Record] {
        records.filter { $0.level == level && $0.message.contains(text) }
    }

    /// The records at `level` or above.
    public func records(atLeast level: Logger.Level) -> [Record] { records.filter { $0.level >= level } }

    /// Every message and metadata value, for checking that something never reached the log.
    public var allText: String { records.map(\.text).joined(separator: "\n") }

    fileprivate func append(_ record: Record) { storage.withLock { $0.append(record) } }

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
