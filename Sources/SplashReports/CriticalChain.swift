public import SplashCore
public import SplashJSON
public import SplashProtocol

/// `critical-chain`: the steps that decided when the splash could be dismissed.
///
/// Like `systemd-analyze critical-chain`: start at the dismissing instant and take the step that
/// finished last before it (every step must be done before dismissing); from there, walk back
/// through the dependency that finished last, to a step that waited on nothing. When the work was
/// done before `min_display`, the launch was held by `min_display`, not by a step: the chain says so
/// (and still shows the work). Time spent in phase `error` (waiting for the user to retry) is
/// reported too, since no step explains it.
public struct CriticalChain: Sendable, Equatable {
    /// One step of the chain.
    public struct Link: Sendable, Equatable {
        public var id: String
        public var label: String?
        /// First attempt's start, ms since the launch began.
        public var startMs: Int64
        /// When the step was done.
        public var endMs: Int64
        public var attempts: Int
        public var status: StepStatus

        public init(id: String, label: String? = nil, startMs: Int64, endMs: Int64, attempts: Int, status: StepStatus) {
            self.id = id
            self.label = label
            self.startMs = startMs
            self.endMs = endMs
            self.attempts = attempts
            self.status = status
        }
    }

    /// When the splash could be dismissed; nil if the launch never got there (then the chain
    /// ends at the record's end).
    public var dismissingAtMs: Int64?
    /// The instant the chain explains (`dismissingAtMs`, or the record's end).
    public var endMs: Int64
    public var minDisplayMs: Int64
    /// True when the work was done before `min_display` and so did not decide the instant.
    public var boundByMinDisplay: Bool
    /// Time spent in phase `error` before `endMs`.
    public var errorMs: Int64
    /// The chain, latest step first (as printed): each link waited for the next one.
    public var links: [Link]

    /// The chain of `record`.
    public static func compute(_ record: LaunchRecord) -> CriticalChain {
        let end = record.dismissingAtMs ?? record.endMs
        let ranges: [String: (start: Int64, end: Int64)] = Dictionary(
            record.steps.compactMap { step in
                guard let start = step.startMs ?? step.skippedAtMs, let stop = step.endMs, stop <= end else { return nil }
                return (step.id, (start, stop))
            },
            uniquingKeysWith: { first, _ in first }
        )
        var links: [Link] = []
        func link(_ step: StepRecord) -> Link {
            let range = ranges[step.id]!
            return Link(
                id: step.id, label: step.label, startMs: range.start, endMs: range.end,
                attempts: step.attemptCount, status: step.status
            )
        }
        // The step done last; among ties, the one that started last (it waited the longest).
        func latest(_ candidates: [StepRecord]) -> StepRecord? {
            candidates.filter { ranges[$0.id] != nil }.max { a, b in
                let ra = ranges[a.id]!, rb = ranges[b.id]!
                return ra.end != rb.end ? ra.end < rb.end : ra.start < rb.start
            }
        }
        var current = latest(record.steps)
        var seen: Set<String> = []
        while let step = current, !seen.contains(step.id) {
            seen.insert(step.id)
            let here = link(step)
            links.append(here)
            let dependencies = step.after.compactMap { id in record.steps.first { $0.id == id } }
                .filter { (ranges[$0.id]?.end ?? .max) <= here.startMs }
            current = latest(dependencies)
        }
        let workDoneAt = links.first?.endMs ?? 0
        let bound = record.minDisplayMs > 0 && workDoneAt < record.minDisplayMs && end >= record.minDisplayMs
        return CriticalChain(
            dismissingAtMs: record.dismissingAtMs,
            endMs: end,
            minDisplayMs: record.minDisplayMs,
            boundByMinDisplay: bound,
            errorMs: errorTime(record, until: end),
            links: links
        )
    }

    /// Time in phase `error` before `end`.
    static func errorTime(_ record: LaunchRecord, until end: Int64) -> Int64 {
        var total: Int64 = 0
        for (index, mark) in record.phases.enumerated() where mark.phase == .error && mark.atMs < end {
            let next = index + 1 < record.phases.count ? record.phases[index + 1].atMs : end
            total += max(0, min(next, end) - mark.atMs)
        }
        return total
    }

    /// The chain for the wire.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "end_ms": .number(Double(endMs)),
            "min_display_ms": .number(Double(minDisplayMs)),
            "bound_by_min_display": .bool(boundByMinDisplay),
            "error_ms": .number(Double(errorMs)),
            "chain": .array(links.map { link in
                var member: [String: JSONValue] = [
                    "id": .string(link.id),
                    "start_ms": .number(Double(link.startMs)),
                    "end_ms": .number(Double(link.endMs)),
                    "duration_ms": .number(Double(link.endMs - link.startMs)),
                    "attempts": .number(Double(link.attempts)),
                    "status": .string(link.status.rawValue),
                ]
                if let label = link.label { member["label"] = .string(label) }
                return .object(member)
            }),
        ]
        object["dismissing_at_ms"] = dismissingAtMs.map { .number(Double($0)) } ?? .null
        return .object(object)
    }

    /// The chain as `systemd-analyze critical-chain` prints it: `@start +duration`, indented.
    public var text: String {
        var lines = [
            "The time when the splash could be dismissed is after the \"@\" character,",
            "the time the step took is after the \"+\" character.",
            "",
        ]
        if let dismissingAtMs {
            var top = "dismissing @\(ReportFormat.seconds(ms: dismissingAtMs))"
            if boundByMinDisplay {
                let doneAt = links.first.map { " (work done @\(ReportFormat.seconds(ms: $0.endMs)))" } ?? ""
                top += " held by min_display \(ReportFormat.duration(ms: minDisplayMs))\(doneAt)"
            }
            lines.append(top)
        } else {
            lines.append("not dismissed (record ends @\(ReportFormat.seconds(ms: endMs)))")
        }
        if errorMs > 0 { lines.append("  (\(ReportFormat.duration(ms: errorMs)) in phase error, waiting for the user)") }
        for (depth, link) in links.enumerated() {
            var line = String(repeating: "  ", count: depth) + "└─\(link.id) @\(ReportFormat.seconds(ms: link.startMs))"
            line += " +\(ReportFormat.duration(ms: link.endMs - link.startMs))"
            if link.attempts > 1 { line += " (\(link.attempts) attempts)" }
            if link.status != .succeeded { line += " [\(link.status.rawValue)]" }
            lines.append(line)
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
