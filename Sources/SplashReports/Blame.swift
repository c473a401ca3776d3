public import SplashCore
public import SplashJSON
public import SplashProtocol

/// `blame`: the steps of a launch, slowest first, like `systemd-analyze blame`.
public enum Blame {
    /// One step's cost in a launch.
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var status: StepStatus
        /// First attempt's start to the step's end, less time in a hard error (see
        /// `LaunchRecord.workingDurationMs(of:)`); 0 for a step that never ran.
        public var durationMs: Int64
        /// Attempts made.
        public var attempts: Int
        /// The failure code of the last failed attempt, or the skip reason.
        public var reason: String?

        public init(id: String, status: StepStatus, durationMs: Int64, attempts: Int, reason: String? = nil) {
            self.id = id
            self.status = status
            self.durationMs = durationMs
            self.attempts = attempts
            self.reason = reason
        }
    }

    /// The steps of `record`, slowest first; ties keep configured order. An attempt still open
    /// (a record cut short) counts up to the record's end.
    public static func rank(_ record: LaunchRecord) -> [Entry] {
        let entries = record.steps.map { step in
            let duration = record.workingDurationMs(of: step) ?? 0
            let lastFailure = step.attempts.last { $0.outcome == .failed }
            let reason = step.status == .skipped ? step.skipReason : (step.status == .failed ? lastFailure?.code : nil)
            return Entry(id: step.id, status: step.status, durationMs: duration, attempts: step.attemptCount, reason: reason)
        }
        return entries.enumerated()
            .sorted { $0.element.durationMs != $1.element.durationMs ? $0.element.durationMs > $1.element.durationMs : $0.offset < $1.offset }
            .map(\.element)
    }

    /// The ranking for the wire: an array of `{id, status, duration_ms, attempts, reason?}`.
    public static func json(_ entries: [Entry]) -> JSONValue {
        .array(entries.map { entry in
            var object: [String: JSONValue] = [
                "id": .string(entry.id),
                "status": .string(entry.status.rawValue),
                "duration_ms": .number(Double(entry.durationMs)),
                "attempts": .number(Double(entry.attempts)),
            ]
            if let reason = entry.reason { object["reason"] = .string(reason) }
            return .object(object)
        })
    }

    /// An aligned table: `  1.204s auth-refresh (2 attempts)`, one line per step.
    public static func text(_ entries: [Entry]) -> String {
        let durations = entries.map { ReportFormat.duration(ms: $0.durationMs) }
        let width = durations.map(\.count).max() ?? 0
        var lines: [String] = []
        for (entry, duration) in zip(entries, durations) {
            var notes: [String] = []
            if entry.attempts > 1 { notes.append("\(entry.attempts) attempts") }
            if entry.status != .succeeded { notes.append(entry.status.rawValue) }
            if let reason = entry.reason { notes.append(reason) }
            let suffix = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
            lines.append("\(ReportFormat.leftPad(duration, to: width + 2)) \(entry.id)\(suffix)")
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
