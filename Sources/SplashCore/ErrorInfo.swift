/// What phase `error` carries: why, and what the user can do.
public struct ErrorInfo: Sendable, Equatable, Codable {
    /// Well-known error codes.
    public enum Code {
        /// The launch ran past `timeout` (soft: work goes on).
        public static let timeout = "timeout"
        /// A network failure.
        public static let network = "network"
        /// A critical step failed for good.
        public static let stepFailed = "step-failed"
        /// A critical step was skipped because one of its dependencies failed.
        public static let stepSkipped = "step-skipped"
    }

    /// User actions offered in the error screen.
    public enum UserAction: String, Sendable, Codable {
        case retry
        case continueOffline = "continue-offline"
    }

    public var code: String
    /// What a renderer shows.
    public var message: String
    /// The step that caused it, if any.
    public var step: String?
    public var actions: [UserAction]
    /// Detail for operators (the underlying failure); renderers need not show it.
    public var detail: String?

    public init(code: String, message: String, step: String?, actions: [UserAction], detail: String? = nil) {
        self.code = code
        self.message = message
        self.step = step
        self.actions = actions
        self.detail = detail
    }

    /// Whether this is the soft timeout error (steps keep running).
    public var isSoft: Bool { code == Code.timeout }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encode(step, forKey: .step)
        try container.encode(actions, forKey: .actions)
        try container.encodeIfPresent(detail, forKey: .detail)
    }

    /// The message renderers show for a failure code.
    static func userMessage(for failure: StepFailure, label: String) -> String {
        switch failure.code {
        case Code.network: "Unable to connect"
        case Code.timeout: "This is taking longer than expected"
        default: "\(label) failed"
        }
    }
}
