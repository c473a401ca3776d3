public import SplashJSON

/// One node of the step graph, as configured.
public struct StepSpec: Sendable, Equatable {
    /// How often a step is tried and how long it waits between tries.
    public struct RetryPolicy: Sendable, Equatable {
        /// Total tries, counting the first one. At least 1.
        public var attempts: Int
        /// The wait after the first failed try; it doubles after each further one.
        public var backoff: Duration

        public init(attempts: Int = 1, backoff: Duration = .milliseconds(200)) {
            self.attempts = max(1, attempts)
            self.backoff = backoff
        }

        /// The wait after failed try number `attempt` (1-based) of a round.
        public func backoff(afterAttempt attempt: Int) -> Duration {
            let doublings = max(0, min(attempt - 1, 30))
            return backoff * (1 << doublings)
        }
    }

    /// Unique id of the step within the graph.
    public var id: String
    /// The plugin that does the work (built-in or external).
    public var plugin: String {
        didSet { if plugin != oldValue { builtin = nil } }
    }
    /// Ids this step depends on.
    public var after: [String]
    /// A critical step must succeed before the splash is dismissed.
    public var critical: Bool
    /// Per-attempt time limit.
    public var timeout: Duration
    public var retry: RetryPolicy
    /// What a renderer may show while the step runs.
    public var label: String?
    /// The step's `[step.options]` as written: external plugins get them as `SPLASHD_OPTIONS`.
    public var options: [String: JSONValue] {
        didSet { if options != oldValue { builtin = nil } }
    }
    /// The checked options of a built-in plugin, read from `options` by the config loader.
    ///
    /// Nil for an external plugin, or a step built without them; changing `plugin` or `options`
    /// clears it. Being derived from those two, it is not part of `==`.
    public var builtin: BuiltinOptions?

    /// The per-attempt time limit used when neither the step nor the plugin manifest sets one.
    public static let defaultTimeout: Duration = .seconds(30)

    public init(
        id: String,
        plugin: String,
        after: [String] = [],
        critical: Bool = true,
        timeout: Duration = StepSpec.defaultTimeout,
        retry: RetryPolicy = RetryPolicy(),
        label: String? = nil,
        options: [String: JSONValue] = [:],
        builtin: BuiltinOptions? = nil
    ) {
        self.id = id
        self.plugin = plugin
        self.after = after
        self.critical = critical
        self.timeout = timeout
        self.retry = retry
        self.label = label
        self.options = options
        self.builtin = builtin
    }

    /// Whether two steps are configured the same; `builtin` is left out, as it follows from
    /// `plugin` and `options`.
    public static func == (lhs: StepSpec, rhs: StepSpec) -> Bool {
        lhs.id == rhs.id && lhs.plugin == rhs.plugin && lhs.after == rhs.after && lhs.critical == rhs.critical
            && lhs.timeout == rhs.timeout && lhs.retry == rhs.retry && lhs.label == rhs.label
            && lhs.options == rhs.options
    }
}
