public import Logging
import SplashCore
import SplashJSON

/// Builds the journal fields of one log record; pure, so it is testable without a journal.
///
/// Every record has `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE` and
/// `CODE_FUNC`. Each metadata key becomes a `SPLASHD_*` field (``JournalField/metadataName(for:)``:
/// `launch` → `SPLASHD_LAUNCH`, `step` → `SPLASHD_STEP`, `duration_ms` → `SPLASHD_DURATION_MS`, …);
/// the `event` key (a ``LaunchLogEvent`` raw value) also gives the event's `MESSAGE_ID`. An error
/// attached to the record becomes `SPLASHD_ERROR`.
///
/// `MESSAGE` is escaped as the text log is (`LogEscaping`): `journalctl --all` prints it to a
/// terminal as it is, so a client's newline or escape sequence must not be in it. The `SPLASHD_*`
/// fields keep their values exactly (the journal stores them binary-safe, for matching).
public enum JournalRecord {
    /// The fields of `event` with the already merged `metadata`, sent as `identifier`.
    public static func fields(
        of event: LogEvent,
        metadata: Logger.Metadata,
        identifier: String
    ) -> [JournalField] {
        var fields: [JournalField] = [
            JournalField("MESSAGE", LogEscaping.escaped(event.message.description)),
            JournalField("PRIORITY", String(priority(of: event.level))),
            JournalField("SYSLOG_IDENTIFIER", identifier),
            JournalField("CODE_FILE", event.file),
            JournalField("CODE_LINE", String(event.line)),
            JournalField("CODE_FUNC", event.function),
        ]
        if let kind = metadata[LaunchLogEvent.metadataKey].flatMap({ LaunchLogEvent(rawValue: $0.description) }) {
            fields.append(JournalField("MESSAGE_ID", kind.messageID))
        }
        // Sorted keys: the same record always gives the same fields in the same order.
        for key in metadata.keys.sorted() {
            fields.append(JournalField(JournalField.metadataName(for: key), metadata[key]!.description))
        }
        if let error = event.error {
            fields.append(JournalField("SPLASHD_ERROR", String(describing: error)))
        }
        return fields
    }

    /// The syslog priority of a swift-log level (`PRIORITY`: 2 critical … 7 debug).
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
