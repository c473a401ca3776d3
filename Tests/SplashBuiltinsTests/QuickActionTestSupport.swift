import Foundation
import Logging
import SplashCore
import SplashPlugins
import Synchronization

/// Collects log records in memory, so tests can look at what a built-in logged.
///
/// Shared by the launch-counter and quick-action tests (named so it cannot clash with other
/// support files in this target).
final class QuickActionLogCapture: Sendable {
    /// One captured record, with the handler's and the call's metadata merged.
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Record]>([])

    /// Everything logged so far.
    var records: [Record] { storage.withLock { $0 } }

    /// A logger at `.trace` that writes here.
    func logger() -> Logger {
        var logger = Logger(label: "splashd.tests") { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// The records at `level` whose message contains `text`.
    func records(_ level: Logger.Level, containing text: String) -> [Record] {
        records.filter { $0.level == level && $0.message.contains(text) }
    }

    /// Every message and metadata value, for checking that something never reached the log.
    var allText: String {
        records.map { record in
            ([record.message] + record.metadata.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }.joined(separator: "\n")
    }

    fileprivate func append(_ record: Record) {
        storage.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let capture: QuickActionLogCapture
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

/// A step context for a built-in, logging into `log`.
func quickActionTestContext(
    step: String,
    plugin: String,
    options: [String: JSONValue] = [:],
    dependencyFacts: [String: Facts] = [:],
    launch: String = "launch-1",
    attempt: Int = 1,
    log: QuickActionLogCapture
) -> StepContext {
    let spec = StepSpec(id: step, plugin: plugin, options: options)
    let run = StepRun(step: spec, launch: launch, attempt: attempt, token: 1, dependencyFacts: dependencyFacts)
    return StepContext(run: run, logger: log.logger(), report: { _ in })
}

/// The names in `directory`, sorted; empty when it does not exist.
func quickActionDirectoryNames(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// Sets the modification time of `path` to `seconds` after the epoch.
func quickActionSetModified(_ path: String, seconds: Double) throws {
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: path)
}
