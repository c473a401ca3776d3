public import Logging
import SplashCore
import SplashJSON
import Synchronization

/// A swift-log backend that sends every record to the systemd journal with structured fields.
///
/// The fields are those of ``JournalRecord`` (`MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`,
/// `CODE_*`, metadata as `SPLASHD_*`, `MESSAGE_ID` for key launch events). A record the journal
/// does not take (no journal socket, a full socket buffer) is written to stderr as one text line
/// instead; the first such line also says why.
public struct JournaldLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// The logger's label.
    public let label: String
    /// The `SYSLOG_IDENTIFIER` of every record.
    public let identifier: String

    /// Whether a record has already fallen back to stderr (the reason is printed once).
    private static let fellBack = Atomic<Bool>(false)

    /// A handler for the logger `label`, sending records at `level` and above as `identifier`.
    public init(
        label: String,
        level: Logger.Level = .info,
        identifier: String = "splashd",
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.logLevel = level
        self.identifier = identifier
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let metadata = LogMetadata(handler: metadata, provider: metadataProvider, event: event.metadata)
        let fields = JournalRecord.fields(of: event, metadata: metadata.merged, identifier: identifier)
        let result = JournalSender.send(fields)
        guard result < 0 else { return }
        var line = "\(identifier): \(event.level) \(LogEscaping.escaped(event.message.description))\(metadata.text)"
        if !Self.fellBack.exchange(true, ordering: .relaxed) {
            line += " [not sent to the journal: \(JournalSender.describe(result)); writing to stderr]"
        }
        JournalSender.writeToStderr(line)
    }
}
