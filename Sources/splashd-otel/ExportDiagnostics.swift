import Logging
import Synchronization

/// What swift-otel said about one export cycle, read from its diagnostic logger: it reports every
/// exported batch (`Exported batch.`, with its size) and every failure (`Failed to export …`) there,
/// and nowhere else. A cycle counts as delivered when every span it made was in an exported batch
/// and no span batch failed; a failed metrics export is logged, and does not make the cycle fail
/// (the traces would be sent again).
final class ExportDiagnostics: Sendable {
    struct Tally: Sendable {
        var exportedSpans = 0
        var failures = 0
        var metricFailures = 0
        var lastFailure: String?
        /// Span batches the collector accepted (a 2xx) with a reply that could not be read.
        var unreadableReplies = 0
        var lastUnreadableReply: String?
    }

    /// Whether `error` came after the collector answered 2xx: a reply body that is not an OTLP
    /// response (garbage, over swift-otel's 2 MiB, no or another content type). OTLP/HTTP: a 2xx
    /// means the data was accepted, so its batch counts as delivered and is not sent again.
    /// swift-otel's error type is internal: recognised by its name, with the decoders' and the
    /// body limit's (docs/operations.md, "Fleet telemetry").
    static func isAfterSuccess(_ error: any Error) -> Bool {
        let type = String(reflecting: Swift.type(of: error))
        switch type {
        case "SwiftProtobuf.BinaryDecodingError", "SwiftProtobuf.JSONDecodingError", "NIOCore.NIOTooManyBytesError":
            return true
        case _ where type.hasSuffix(".OTLPHTTPExporterError"):
            let description = "\(error)"
            return description.hasPrefix("responseHasUnsupportedContentType") || description.hasPrefix("responseHasMissingContentType")
        default:
            return false
        }
    }

    let tally = Mutex(Tally())

    /// A logger for `OTel.Configuration.diagnosticLogger`, at debug level (batch sizes are debug).
    func logger() -> Logger {
        Logger(label: "splashd-otel.otel") { _ in Handler(diagnostics: self) }
    }

    struct Handler: LogHandler {
        let diagnostics: ExportDiagnostics
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let text = event.message.description
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            diagnostics.tally.withLock { tally in
                if text == "Exported batch.", case .string(let size)? = merged["batch_size"], let count = Int(size) {
                    tally.exportedSpans += count
                } else if event.level >= .warning, text == "Failed to export batch.", let error = event.error,
                    ExportDiagnostics.isAfterSuccess(error), case .string(let size)? = merged["batch_size"], let count = Int(size)
                {
                    tally.exportedSpans += count
                    tally.unreadableReplies += 1
                    tally.lastUnreadableReply = "\(error)"
                } else if event.level >= .warning, text == "Failed to export batch." || text.hasPrefix("Force flush failed") {
                    tally.failures += 1
                    tally.lastFailure = event.error.map { "\(text) \($0)" } ?? text
                } else if event.level >= .warning, text.hasPrefix("Failed to export metrics") {
                    // Metrics are aggregates: a lost data point is not worth sending the traces
                    // again, which a failed cycle would.
                    tally.metricFailures += 1
                }
            }
        }
    }
}
