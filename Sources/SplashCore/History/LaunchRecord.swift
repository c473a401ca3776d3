public import SplashProtocol

/// What one launch looked like, kept in the history: its steps' attempts, its phases, where it went.
///
/// Times are milliseconds since the launch began (`atMs`, `startMs`, …), except `startedAtUnixMs`,
/// the wall clock at the start, which is only for display. The JSON form uses snake_case keys,
/// omits absent values, and decodes tolerantly: unknown keys are ignored and missing lists are
/// empty, so records written by an older or newer daemon still read. A record that is not an object
/// or lacks `launch` is an error (the history skips it).
public struct LaunchRecord: Codable, Sendable, Equatable {
    /// The instant the launch entered a phase.
    public struct PhaseMark: Codable, Sendable, Equatable {
        public var phase: Phase
        /// Milliseconds since the launch began.
        public var atMs: Int64
        /// For `error`: the error code (`step-failed`, `network`, `timeout`, …).
        public var code: String?
        /// For `error`: the step that caused it.
        public var step: String?

        public init(phase: Phase, atMs: Int64, code: String? = nil, step: String? = nil) {
            self.phase = phase
            self.atMs = atMs
            self.code = code
            self.step = step
        }

        enum CodingKeys: String, CodingKey {
            case phase, code, step
            case atMs = "at_ms"
        }
    }

    /// The launch id.
    public var launch: String
    /// Why the launch began; nil in records of daemons before 0.2 (a boot or a relaunch).
    public var reason: LaunchReason?
    /// Wall-clock start (Unix epoch, milliseconds), for display only.
    public var startedAtUnixMs: Int64
    /// `fingerprint(of:)` of the graph the launch ran; records of other graphs are not comparable.
    public var graphFingerprint: String
    /// `min_display` in effect for the launch.
    public var minDisplayMs: Int64
    /// `slow_after` in effect for the launch; nil in records of older daemons.
    public var slowAfterMs: Int64?
    /// Every phase the launch entered, in order; the first is `loading` at 0.
    public var phases: [PhaseMark]
    /// When the splash could be dismissed (the last entry into `dismissing`), if it got there.
    public var dismissingAtMs: Int64?
    /// When the launch reached `finished`, if it did.
    public var finishedAtMs: Int64?
    /// Where the app went, once `finished`.
    public var destination: Destination?
    /// The steps in configured order.
    public var steps: [StepRecord]
    /// The modes beside the launch while it ran, or after it while it was the last one (an update
    /// over the app, the shutdown): each change, and an update's end. Absent when there were none
    /// (and in records of daemons before 0.3).
    public var modes: [ModeMark]?

    /// A change of mode (design §15), at an instant of the launch.
    public struct ModeMark: Codable, Sendable, Equatable {
        public var mode: SplashMode
        public var atMs: Int64
        /// Mode `update`: who drives it.
        public var source: UpdateStatus.Source?
        /// Mode `update`: how it ended (`succeeded`, `failed`), at its end's mark.
        public var result: UpdateStatus.Result?
        /// Mode `shutdown`: how the device goes down.
        public var kind: ShutdownKind?

        public init(mode: SplashMode, atMs: Int64, source: UpdateStatus.Source? = nil, result: UpdateStatus.Result? = nil,
                    kind: ShutdownKind? = nil) {
            self.mode = mode
            self.atMs = atMs
            self.source = source
            self.result = result
            self.kind = kind
        }

        /// The mark of a mode machine's event at `atMs`; nil for events that are not a mark.
        public init?(_ event: ModeMachine.Event, atMs: Int64) {
            switch event {
            case .updateStarted(let source): self.init(mode: .update, atMs: atMs, source: source)
            case .updateFinished(let source, let result, _, _): self.init(mode: .update, atMs: atMs, source: source, result: result)
            case .shutdownStarted(let kind): self.init(mode: .shutdown, atMs: atMs, kind: kind)
            case .modeChanged(_, .launch): self.init(mode: .launch, atMs: atMs)
            case .updateQuit, .modeChanged: return nil
            }
        }

        enum CodingKeys: String, CodingKey {
            case mode, source, result, kind
            case atMs = "at_ms"
        }
    }

    /// The most mode marks a record keeps: the first and the latest.
    public static let maxModeMarks = 64

    /// Adds a mode mark, keeping at most `maxModeMarks` (the first and the latest).
    public mutating func mark(_ mark: ModeMark) {
        var marks = modes ?? []
        marks.append(mark)
        if marks.count > Self.maxModeMarks { marks.remove(at: 1) }
        modes = marks
    }

    public init(
        launch: String,
        reason: LaunchReason? = nil,
        startedAtUnixMs: Int64,
        graphFingerprint: String,
        minDisplayMs: Int64,
        phases: [PhaseMark] = [PhaseMark(phase: .loading, atMs: 0)],
        dismissingAtMs: Int64? = nil,
        finishedAtMs: Int64? = nil,
        destination: Destination? = nil,
        steps: [StepRecord]
    ) {
        self.launch = launch
        self.reason = reason
        self.startedAtUnixMs = startedAtUnixMs
        self.graphFingerprint = graphFingerprint
        self.minDisplayMs = minDisplayMs
        self.phases = phases
        self.dismissingAtMs = dismissingAtMs
        self.finishedAtMs = finishedAtMs
        self.destination = destination
        self.steps = steps
    }

    enum CodingKeys: String, CodingKey {
        case launch, reason, phases, destination, steps, modes
        case startedAtUnixMs = "started_at_unix_ms"
        case graphFingerprint = "graph_fingerprint"
        case minDisplayMs = "min_display_ms"
        case slowAfterMs = "slow_after_ms"
        case dismissingAtMs = "dismissing_at_ms"
        case finishedAtMs = "finished_at_ms"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        launch = try container.decode(String.self, forKey: .launch)
        // A reason this daemon does not know (a newer one wrote it) reads as unknown, not as an error.
        reason = try container.decodeIfPresent(String.self, forKey: .reason).flatMap(LaunchReason.init(rawValue:))
        startedAtUnixMs = try container.decodeIfPresent(Int64.self, forKey: .startedAtUnixMs) ?? 0
        graphFingerprint = try container.decodeIfPresent(String.self, forKey: .graphFingerprint) ?? ""
        minDisplayMs = try container.decodeIfPresent(Int64.self, forKey: .minDisplayMs) ?? 0
        slowAfterMs = try container.decodeIfPresent(Int64.self, forKey: .slowAfterMs)
        phases = try container.decodeIfPresent([PhaseMark].self, forKey: .phases) ?? []
        dismissingAtMs = try container.decodeIfPresent(Int64.self, forKey: .dismissingAtMs)
        finishedAtMs = try container.decodeIfPresent(Int64.self, forKey: .finishedAtMs)
        destination = try container.decodeIfPresent(Destination.self, forKey: .destination)
        steps = try container.decodeIfPresent([StepRecord].self, forKey: .steps) ?? []
        // Marks a newer daemon wrote (a mode this one does not know) cost the marks, not the record.
        modes = (try? container.decodeIfPresent([ModeMark].self, forKey: .modes)) ?? nil
    }

    /// The step with `id`.
    public func step(_ id: String) -> StepRecord? { steps.first { $0.id == id } }

    /// The last instant the record knows of: finished, else dismissing, else the latest step or phase event.
    public var endMs: Int64 {
        if let finishedAtMs { return finishedAtMs }
        var latest = dismissingAtMs ?? 0
        for mark in phases { latest = max(latest, mark.atMs) }
        for step in steps { if let end = step.endMs { latest = max(latest, end) } }
        for step in steps { for attempt in step.attempts { latest = max(latest, attempt.startMs) } }
        return latest
    }

    /// Time `step` spent from its first attempt to its end, less the time the launch stood in a
    /// hard error (nothing runs then; a soft `timeout` error does not pause the work).
    public func workingDurationMs(of step: StepRecord) -> Int64? {
        guard let start = step.startMs, let end = step.endMs ?? (step.attempts.isEmpty ? nil : endMs) else { return nil }
        var paused: Int64 = 0
        for (index, mark) in phases.enumerated() where mark.phase == .error && mark.code != ErrorCode.timeout.rawValue {
            let until = index + 1 < phases.count ? phases[index + 1].atMs : endMs
            paused += max(0, min(until, end) - max(mark.atMs, start))
        }
        return max(0, end - start - paused)
    }

    /// Whether renderers were told `slow`, as the machine decides it (design §3): some stretch of
    /// `loading` lasted `slow_after` (a retry starts a new stretch) while a critical step had not
    /// yet succeeded. A launch that only waited out `min_display` was not slow. False when the
    /// record does not know `slow_after`.
    public var wasSlow: Bool {
        guard let slowAfterMs else { return false }
        for (index, mark) in phases.enumerated() where mark.phase == .loading {
            let until = index + 1 < phases.count ? phases[index + 1].atMs : (dismissingAtMs ?? endMs)
            let slowAt = mark.atMs + slowAfterMs
            if until - mark.atMs >= slowAfterMs && isCriticalWorkPending(at: slowAt) { return true }
        }
        return false
    }

    /// Whether a critical step had no attempt that succeeded by `ms`.
    func isCriticalWorkPending(at ms: Int64) -> Bool {
        steps.contains { step in
            step.critical && !step.attempts.contains { $0.outcome == .succeeded && ($0.endMs ?? .max) <= ms }
        }
    }

    /// The last `error` mark before dismissing (or the end), when the launch is stuck in or passed an error.
    public var lastError: PhaseMark? {
        phases.last { $0.phase == .error && $0.atMs <= (dismissingAtMs ?? Int64.max) }
    }
}
