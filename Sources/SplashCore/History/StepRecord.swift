public import SplashProtocol

/// One step of a recorded launch: its configuration, final status and every attempt.
public struct StepRecord: Codable, Sendable, Equatable {
    /// How one attempt ended.
    public enum Outcome: String, Codable, Sendable, CaseIterable {
        case succeeded
        case failed
        /// Stopped by the daemon (a hard error elsewhere, continue-offline, shutdown).
        case cancelled
    }

    /// One attempt of the step.
    public struct Attempt: Codable, Sendable, Equatable {
        /// 1-based attempt number within the launch (across retry rounds).
        public var attempt: Int
        /// Milliseconds since the launch began.
        public var startMs: Int64
        /// Nil while the attempt runs (or when the record was cut short).
        public var endMs: Int64?
        /// Nil while the attempt runs.
        public var outcome: Outcome?
        /// The failure code of a failed attempt.
        public var code: String?
        /// The failure message of a failed attempt.
        public var reason: String?

        public init(attempt: Int, startMs: Int64, endMs: Int64? = nil, outcome: Outcome? = nil, code: String? = nil, reason: String? = nil) {
            self.attempt = attempt
            self.startMs = startMs
            self.endMs = endMs
            self.outcome = outcome
            self.code = code
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case attempt, outcome, code, reason
            case startMs = "start_ms"
            case endMs = "end_ms"
        }
    }

    public var id: String
    public var plugin: String
    public var critical: Bool
    /// Ids this step depends on.
    public var after: [String]
    public var label: String?
    /// The status the step ended the launch with (`pending`/`running` when the record was cut short).
    public var status: StepStatus
    /// Every attempt in order (at most `LaunchRecorder.maxAttemptsPerStep`: the first and the latest).
    public var attempts: [Attempt]
    /// When the step was skipped, if it was.
    public var skippedAtMs: Int64?
    /// Why the step was skipped (`auth-refresh failed`, `continued offline`).
    public var skipReason: String?

    public init(
        id: String,
        plugin: String,
        critical: Bool = true,
        after: [String] = [],
        label: String? = nil,
        status: StepStatus = .pending,
        attempts: [Attempt] = [],
        skippedAtMs: Int64? = nil,
        skipReason: String? = nil
    ) {
        self.id = id
        self.plugin = plugin
        self.critical = critical
        self.after = after
        self.label = label
        self.status = status
        self.attempts = attempts
        self.skippedAtMs = skippedAtMs
        self.skipReason = skipReason
    }

    enum CodingKeys: String, CodingKey {
        case id, plugin, critical, after, label, status, attempts
        case skippedAtMs = "skipped_at_ms"
        case skipReason = "skip_reason"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        plugin = try container.decodeIfPresent(String.self, forKey: .plugin) ?? ""
        critical = try container.decodeIfPresent(Bool.self, forKey: .critical) ?? true
        after = try container.decodeIfPresent([String].self, forKey: .after) ?? []
        label = try container.decodeIfPresent(String.self, forKey: .label)
        status = try container.decodeIfPresent(StepStatus.self, forKey: .status) ?? .pending
        attempts = try container.decodeIfPresent([Attempt].self, forKey: .attempts) ?? []
        skippedAtMs = try container.decodeIfPresent(Int64.self, forKey: .skippedAtMs)
        skipReason = try container.decodeIfPresent(String.self, forKey: .skipReason)
    }

    /// When the first attempt started.
    public var startMs: Int64? { attempts.first?.startMs }

    /// When the step was done: the end of its last attempt, or when it was skipped.
    public var endMs: Int64? {
        if let last = attempts.last {
            if let end = last.endMs { return max(end, skippedAtMs ?? end) }
            return skippedAtMs
        }
        return skippedAtMs
    }

    /// Attempts made (the latest attempt number; attempts in the middle may have been dropped).
    public var attemptCount: Int { attempts.last?.attempt ?? 0 }

    /// Wall time from the first attempt's start to the step's end (retries and backoffs included).
    public var durationMs: Int64? {
        guard let start = startMs, let end = endMs else { return nil }
        return max(0, end - start)
    }

    /// Whether an attempt was stopped from outside (the step's span then says little about its cost).
    public var wasCancelled: Bool { attempts.contains { $0.outcome == .cancelled } }
}
