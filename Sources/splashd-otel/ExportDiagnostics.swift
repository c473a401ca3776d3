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
