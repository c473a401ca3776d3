#if canImport(Glibc)
import Glibc
#endif
public import Logging
import SplashCore
import SplashJSON
import SystemPackage

/// Writes one line per record to stderr, as text or as JSON.
///
/// Text: `2026-11-22T12:00:00.123Z info launch started launch=6f1c…`. JSON: one object per line
/// with `time`, `level`, `message`, `source`, `file`, `line` and the metadata as string members.
///
/// Nothing in a record can break its line or reach the terminal as a control sequence: in text,
/// the message and every metadata key and value are escaped (`LogEscaping`: `\n`, `\x1b`,
/// `\u202e`, `\\`); in JSON, the writer escapes the same characters as `\u` escapes, so the
/// values read back are the original ones.
/// The metadata is merged and ordered as `JournaldLogHandler` does it (`LogMetadata`): the
/// handler's, then the metadata provider's, then the record's own.
public struct StderrLogHandler: LogHandler {
    public enum Format: Sendable {
        case text
        case json
    }

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: Format
    private let output: FileDescriptor

    /// A handler for the logger `label` writing records at `level` and above in `format` to
    /// `outputDescriptor` (stderr unless told otherwise; the handler never closes it).
    public init(
        label: String,
        format: Format,
        level: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil,
        outputDescriptor: Int32 = 2
    ) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.output = FileDescriptor(rawValue: outputDescriptor)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let metadata = LogMetadata(handler: metadata, provider: metadataProvider, event: event.metadata)
        var line: String
        switch format {
        case .text:
            line = "\(Self.timestamp()) \(event.level) \(LogEscaping.escaped(event.message.description))\(metadata.text)"
        case .json:
            var writer = JSONWriter(capacity: 256, escapingAllControls: true)
            writer.object { w in
                w.key("time"); w.string(Self.timestamp())
                w.key("level"); w.string(event.level.rawValue)
                w.key("message"); w.string(event.message.description)
                w.key("source"); w.string(event.source)
                w.key("file"); w.string(event.file)
                w.key("line"); w.int(Int64(event.line))
                for (key, value) in metadata.entries {
                    w.key(key); w.string(value)
                }
            }
            line = writer.string
        }
        line += "\n"
        // The record in one write(2) (writeAll only writes again after a short write): lines
        // from concurrent loggers do not interleave.
        _ = try? output.writeAll(line.utf8)
    }

    /// UTC, millisecond precision, ISO 8601.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UTCTimestamp.iso8601(seconds: Int64(now.tv_sec), milliseconds: Int(now.tv_nsec / 1_000_000))
    }
}
