public import Logging
import SplashCore
import SplashJSON

/// One record's metadata as the daemon's log handlers write it (`JournaldLogHandler`, and
/// `StderrLogHandler` in SplashDaemon).
///
/// The handler's metadata, the metadata provider's and the record's own are merged in swift-log's
/// order (that of its `StreamLogHandler`): a later one wins a key, so a record's metadata wins over
/// the provider's, and the provider's over the handler's. Keys are taken in sorted order, so the
/// same record is always written the same way.
public struct LogMetadata: Sendable {
    /// The merged metadata.
    public let merged: Logger.Metadata
    /// The keys of `merged`, sorted.
    public let keys: [String]

    /// Merges `handler`'s metadata, then `provider`'s, then `event`'s.
    public init(handler: Logger.Metadata, provider: Logger.MetadataProvider?, event: Logger.Metadata?) {
        var merged = handler
        if let provided = provider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, provided in provided }
        }
        if let event, !event.isEmpty {
            merged.merge(event) { _, explicit in explicit }
        }
        self.merged = merged
        keys = merged.keys.sorted()
    }

    /// The value of each key, in key order, as text.
    public var entries: [(key: String, value: String)] {
        keys.map { ($0, merged[$0]!.description) }
    }

    /// ` key=value` for every entry, in key order, keys and values escaped (`LogEscaping`) so
    /// that no value can end the line; empty when there is no metadata.
    public var text: String {
        var text = ""
        for (key, value) in entries { text += " \(LogEscaping.escaped(key))=\(LogEscaping.escaped(value))" }
        return text
    }
}
