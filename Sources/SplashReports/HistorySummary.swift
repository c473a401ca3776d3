public import SplashCore
public import SplashJSON
public import SplashProtocol

/// `history`: the last launches, one line each.
public enum HistorySummary {
    /// One launch in brief.
    public struct Line: Sendable, Equatable {
        public var launch: String
        /// Why it began (`boot` for records of daemons before 0.2).
        public var reason: LaunchReason
        public var startedAtUnixMs: Int64
        /// Time to dismissing; nil when the launch never got there.
        public var dismissingAtMs: Int64?
        /// The destination screen (with route/sheet), the error, or how far the record got.
        public var outcome: String
        /// The slowest step.
        public var slowest: Blame.Entry?
    }

    /// The summary of `record`.
    public static func summarize(_ record: LaunchRecord) -> Line {
        let top = Blame.rank(record).first { $0.durationMs > 0 }
        return Line(
            launch: record.launch,
            reason: record.reason ?? .boot,
            startedAtUnixMs: record.startedAtUnixMs,
            dismissingAtMs: record.dismissingAtMs,
            outcome: outcome(record),
            slowest: top
        )
    }

    /// One line per record, in the given order:
    /// `2024-05-01T09:30:00Z  6f1c2a3b  boot        1.204s  home /orders/42  slowest auth-refresh 0.800s`.
    public static func lines(_ records: [LaunchRecord]) -> [String] {
        let summaries = records.map(summarize)
        let totals = summaries.map { $0.dismissingAtMs.map { ReportFormat.duration(ms: $0) } ?? "-" }
        let totalWidth = totals.map(\.count).max() ?? 0
        let outcomeWidth = min(summaries.map(\.outcome.count).max() ?? 0, 40)
        return zip(summaries, totals).map { summary, total in
            var line = "\(ReportFormat.iso8601(unixMs: summary.startedAtUnixMs))  "
            line += ReportFormat.shortID(summary.launch).padding(8) + "  "
            line += summary.reason.rawValue.padding(Self.reasonWidth) + "  "
            line += ReportFormat.leftPad(total, to: totalWidth) + "  "
            if let slowest = summary.slowest {
                line += summary.outcome.padding(outcomeWidth)
                line += "  slowest \(slowest.id) \(ReportFormat.duration(ms: slowest.durationMs))"
            } else {
                line += summary.outcome
            }
            return line
        }
    }

    /// The lines for the wire: an array of objects, oldest first.
    public static func json(_ records: [LaunchRecord]) -> JSONValue {
        .array(records.map { record in
            let line = summarize(record)
            var object: [String: JSONValue] = [
                "launch": .string(line.launch),
                "reason": .string(line.reason.rawValue),
                "started_at": .string(ReportFormat.iso8601(unixMs: line.startedAtUnixMs)),
                "outcome": .string(line.outcome),
                "dismissing_at_ms": line.dismissingAtMs.map { .number(Double($0)) } ?? .null,
            ]
            if let slowest = line.slowest {
                object["slowest"] = .object(["id": .string(slowest.id), "duration_ms": .number(Double(slowest.durationMs))])
            }
            return .object(object)
        })
    }

    /// The longest reason, `app-exited`.
    static let reasonWidth = LaunchReason.allCases.map(\.rawValue.count).max() ?? 0

    private static func outcome(_ record: LaunchRecord) -> String {
        if let destination = record.destination {
            var text = destination.screen.rawValue
            if let route = destination.route { text += " \(route)" }
            if let sheet = destination.sheet { text += " sheet=\(sheet)" }
            if destination.reviewPrompt { text += " +review" }
            if record.phases.contains(where: { $0.phase == .error }) { text += " (after error)" }
            return text + modes(record)
        }
        let last = record.phases.last?.phase ?? .loading
        if last == .error, let error = record.lastError {
            return "error \(error.code ?? "?")" + (error.step.map { " (\($0))" } ?? "")
        }
        return "incomplete (\(last.rawValue))" + modes(record)
    }

    /// The modes beside the launch, briefly: ` +update(rauc, succeeded)`, ` +update(psplash)`
    /// (ended by QUIT, or still running), ` +shutdown(reboot)`.
    private static func modes(_ record: LaunchRecord) -> String {
        var parts: [String] = []
        var open: (index: Int, source: String)?
        for mark in record.modes ?? [] {
            switch mark.mode {
            case .update:
                let source = mark.source?.rawValue ?? "?"
                if let result = mark.result, let update = open {
                    parts[update.index] = "update(\(update.source), \(result.rawValue))"
                    open = nil
                } else if mark.result == nil {
                    parts.append("update(\(source))")
                    open = (parts.count - 1, source)
                }
            case .shutdown:
                parts.append("shutdown(\(mark.kind?.rawValue ?? "?"))")
            case .launch:
                open = nil
            }
        }
        return parts.map { " +" + $0 }.joined()
    }
}

extension String {
    /// Pads with spaces on the right to `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
