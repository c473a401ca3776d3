public import SplashCore

/// One launch as design §12's trace, in plain values: what `splashd-otel` hands to OpenTelemetry.
///
/// - a root span `splashd.launch`, from the launch's start to its end (`finished`), with its id,
///   outcome, destination screen, `slow`, retries, splashd's version and the graph's fingerprint;
///   every phase change is an event on it, at its own instant;
/// - a child span `splashd.step` per step that ran or was skipped (id, plugin, critical, status,
///   attempts), from its first attempt to its end;
/// - under it a span `splashd.step.attempt` per attempt (number, outcome, error code and reason).
///
/// Instants are Unix nanoseconds from the record's wall-clock start plus its millisecond offsets,
/// so the exported timings equal the history's. Nothing secret is in a record (no options, no
/// facts, no session), and nothing but what is listed here is exported.
public struct LaunchTrace: Sendable, Equatable {
    /// A value of an attribute.
    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    /// An event on a span, at its own instant.
    public struct Event: Sendable, Equatable {
        public var name: String
        public var unixNanos: UInt64
        public var attributes: [String: Value]
    }

    /// One span; `parent` is the index of its parent in `spans` (nil for the root).
    public struct Span: Sendable, Equatable {
        public var name: String
        public var parent: Int?
        public var startUnixNanos: UInt64
        public var endUnixNanos: UInt64
        public var attributes: [String: Value]
        public var events: [Event] = []
        /// An error status with this message (a failed attempt or step, a launch that failed).
        public var error: String?
    }

    /// The root first, then each step followed by its attempts.
    public var spans: [Span]

    /// The measurements of the launch, for the histograms and the failure counter.
    public struct Measurements: Sendable, Equatable {
        /// From the start to `dismissing` (when the work was done and the splash could go).
        public var launchMs: Int64
        /// Each step that ran: id and duration (first attempt to end).
        public var stepMs: [(id: String, ms: Int64)]
        /// Each failed attempt: step id and error code.
        public var failures: [(step: String, code: String)]

        public static func == (a: Measurements, b: Measurements) -> Bool {
            a.launchMs == b.launchMs && a.stepMs.elementsEqual(b.stepMs, by: { $0 == $1 })
                && a.failures.elementsEqual(b.failures, by: { $0 == $1 })
        }
    }

    public var measurements: Measurements

    /// The latest start a trace carries (Unix milliseconds): the last whose nanoseconds fit in
    /// OTLP's unsigned 64 bits (July 2554). A record that says later is not a real launch's (a
    /// damaged history file).
    public static let latestStartUnixMs = Int64(UInt64.max / 1_000_000)

    /// The trace of a finished launch; nil for one that has not finished, or whose start is not a
    /// real instant (before 1970 or after `latestStartUnixMs`). Offsets past the 64-bit nanosecond
    /// range are clamped to it.
    public init?(record: LaunchRecord, version: String) {
        guard let finishedAtMs = record.finishedAtMs,
            (0...Self.latestStartUnixMs).contains(record.startedAtUnixMs)
        else { return nil }
        let origin = UInt64(record.startedAtUnixMs) * 1_000_000
        func at(_ ms: Int64) -> UInt64 {
            let (offset, overflowed) = UInt64(max(0, ms)).multipliedReportingOverflow(by: 1_000_000)
            let (sum, past) = origin.addingReportingOverflow(offset)
            return overflowed || past ? UInt64.max : sum
        }

        let retries = zip(record.phases, record.phases.dropFirst()).filter { $0.phase == .error && $1.phase == .loading }.count
        var root = Span(
            name: "splashd.launch", parent: nil, startUnixNanos: at(0), endUnixNanos: at(finishedAtMs),
            attributes: [
                "splashd.launch.id": .string(record.launch),
                "splashd.launch.reason": .string(record.reason?.rawValue ?? "boot"),
                "splashd.launch.outcome": .string(record.phases.contains { $0.phase == .error } ? "finished-after-error" : "finished"),
                "splashd.launch.slow": .bool(record.wasSlow),
                "splashd.launch.retries": .int(Int64(retries)),
                "splashd.version": .string(version),
                "splashd.graph.fingerprint": .string(record.graphFingerprint),
            ]
        )
        if let destination = record.destination {
            root.attributes["splashd.destination.screen"] = .string(destination.screen.rawValue)
        }
        if let dismissing = record.dismissingAtMs { root.attributes["splashd.launch.dismissing_ms"] = .int(dismissing) }
        if let error = record.lastError, let code = error.code { root.attributes["splashd.launch.error.code"] = .string(code) }
        for mark in record.phases {
            var attributes: [String: Value] = ["splashd.phase": .string(mark.phase.rawValue)]
            if let code = mark.code { attributes["splashd.error.code"] = .string(code) }
            if let step = mark.step { attributes["splashd.error.step"] = .string(step) }
            root.events.append(Event(name: "splashd.phase", unixNanos: at(mark.atMs), attributes: attributes))
        }
        if record.finishedAtMs != nil, !record.phases.contains(where: { $0.phase == .finished }) {
            root.events.append(Event(name: "splashd.phase", unixNanos: at(finishedAtMs), attributes: ["splashd.phase": .string("finished")]))
        }

        // The modes beside the launch (design §15): an update or a shutdown, each change an event.
        for mark in record.modes ?? [] {
            var attributes: [String: Value] = ["splashd.mode": .string(mark.mode.rawValue)]
            if let source = mark.source { attributes["splashd.update.source"] = .string(source.rawValue) }
            if let result = mark.result { attributes["splashd.update.result"] = .string(result.rawValue) }
            if let kind = mark.kind { attributes["splashd.shutdown.kind"] = .string(kind.rawValue) }
            root.events.append(Event(name: "splashd.mode", unixNanos: at(mark.atMs), attributes: attributes))
        }
        if record.modes?.contains(where: { $0.mode == .update && ($0.atMs < finishedAtMs) }) == true {
            root.attributes["splashd.launch.held_by_update"] = .bool(true)
        }

        var spans = [root]
        var stepMs: [(id: String, ms: Int64)] = []
        var failures: [(step: String, code: String)] = []
        for step in record.steps {
            guard let start = step.startMs ?? step.skippedAtMs else { continue }
            let end = max(start, step.endMs ?? step.skippedAtMs ?? finishedAtMs)
            var span = Span(
                name: "splashd.step", parent: 0, startUnixNanos: at(start), endUnixNanos: at(end),
                attributes: [
                    "splashd.step.id": .string(step.id),
                    "splashd.step.plugin": .string(step.plugin),
                    "splashd.step.critical": .bool(step.critical),
                    "splashd.step.status": .string(step.status.rawValue),
                    "splashd.step.attempts": .int(Int64(step.attemptCount)),
                ]
            )
            if let reason = step.skipReason { span.attributes["splashd.step.skip_reason"] = .string(reason) }
            if step.status == .failed { span.error = step.attempts.last?.reason ?? "failed" }
            let stepIndex = spans.count
            spans.append(span)
            if !step.attempts.isEmpty { stepMs.append((step.id, end - start)) }
            for attempt in step.attempts {
                let attemptEnd = max(attempt.startMs, attempt.endMs ?? end)
                var child = Span(
                    name: "splashd.step.attempt", parent: stepIndex, startUnixNanos: at(attempt.startMs),
                    endUnixNanos: at(attemptEnd),
                    attributes: [
                        "splashd.step.id": .string(step.id),
                        "splashd.attempt": .int(Int64(attempt.attempt)),
                        "splashd.attempt.outcome": .string(attempt.outcome?.rawValue ?? "unfinished"),
                    ]
                )
                if let code = attempt.code { child.attributes["splashd.attempt.code"] = .string(code) }
                if let reason = attempt.reason { child.attributes["splashd.attempt.reason"] = .string(reason) }
                if attempt.outcome == .failed {
                    child.error = attempt.reason ?? attempt.code ?? "failed"
                    failures.append((step.id, attempt.code ?? "failed"))
                }
                spans.append(child)
            }
        }
        self.spans = spans
        measurements = Measurements(launchMs: record.dismissingAtMs ?? finishedAtMs, stepMs: stepMs, failures: failures)
    }
}
