public import Logging

/// How every program of splashd logs (the daemon, `splashd-web`, `splashd-otel`): one bootstrap,
/// so all of them write to the journal in its native protocol, with the same fields, when their
/// stderr is the journal, and the same escaped lines otherwise.
public enum LogOutput {
    /// Where records go and in what form: `auto` is `journal` when stderr is the journal
    /// (`JOURNAL_STREAM` names it), else `text`.
    public enum Format: String, Sendable, CaseIterable {
        case auto, journal, text, json
    }

    /// Bootstraps swift-log for the process: `JournaldLogHandler` for the journal (its records
    /// sent as `identifier`, the journal's `SYSLOG_IDENTIFIER`), else a `StderrLogHandler` in text
    /// or JSON. Records below `level` are dropped.
    public static func bootstrap(format: Format, level: Logger.Level, environment: [String: String], identifier: String = "splashd") {
        let toJournal = format == .journal || (format == .auto && JournalStream.stderrIsJournal(environment: environment))
        if toJournal {
            LoggingSystem.bootstrap { label in JournaldLogHandler(label: label, level: level, identifier: identifier) }
        } else {
            let format: StderrLogHandler.Format = format == .json ? .json : .text
            LoggingSystem.bootstrap { label in StderrLogHandler(label: label, format: format, level: level) }
        }
    }
}
