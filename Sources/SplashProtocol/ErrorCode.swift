/// A machine-readable error code: of an `error` reply on the socket, of phase `error`, and of a
/// step's failure. One type for all three, written on the wire as its `rawValue`.
///
/// A struct over a private enum (as swift-service-lifecycle's error codes are), so codes can be
/// added without breaking a `switch` anywhere; equality compares codes. A code read from the wire
/// that this build does not know is kept as it was written (a newer daemon may send it).
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Known: String, CaseIterable {
        // Socket protocol replies.
        case badRequest = "bad-request"
        case lineTooLong = "line-too-long"
        case permissionDenied = "permission-denied"
        case invalidTransition = "invalid-transition"
        case unknownStep = "unknown-step"
        case notASignalStep = "not-a-signal-step"
        case unknownAction = "unknown-action"
        case unavailable
        // Phase `error`.
        case timeout
        case network
        case stepFailed = "step-failed"
        case stepSkipped = "step-skipped"
        // Step failures.
        case stepTimeout = "step-timeout"
        case cancelled
        case badOptions = "bad-options"
        case authRejected = "auth-rejected"
        case pluginTemporaryFailure = "plugin-tempfail"
        case pluginExited = "plugin-exit"
        case pluginSignaled = "plugin-signal"
        case pluginNotStartable = "plugin-not-startable"
        case pluginIOFailed = "plugin-io"
        case cacheUnwritable = "cache-unwritable"
        // Socket protocol replies (added later).
        case busy
        // Phase `error` (added later).
        case appCrashLoop = "app-crash-loop"
    }

    private enum Storage: Hashable, Sendable {
        case known(Known)
        case unrecognised(String)
    }

    private let storage: Storage

    private init(_ known: Known) { storage = .known(known) }

    /// The code as read from the wire; one this build does not know is kept as it is.
    public init(rawValue: String) {
        storage = Known(rawValue: rawValue).map(Storage.known) ?? .unrecognised(rawValue)
    }

    /// The code as written on the wire, e.g. `invalid-transition`.
    public var rawValue: String {
        switch storage {
        case .known(let known): known.rawValue
        case .unrecognised(let text): text
        }
    }

    public var description: String { rawValue }

    // MARK: Socket protocol

    /// A line that is not a JSON object with a known `cmd` and its fields.
    public static let badRequest = ErrorCode(.badRequest)
    /// A line over 64 KiB; the connection is closed.
    public static let lineTooLong = ErrorCode(.lineTooLong)
    /// A control command from a peer that may not send it.
    public static let permissionDenied = ErrorCode(.permissionDenied)
    /// A command the current phase does not allow; nothing changed.
    public static let invalidTransition = ErrorCode(.invalidTransition)
    /// `complete` of a step id the graph does not have.
    public static let unknownStep = ErrorCode(.unknownStep)
    /// `complete` of a step whose plugin is not `signal`.
    public static let notASignalStep = ErrorCode(.notASignalStep)
    /// An `action` / `open` after `finished` that the quick-action step's router does not know.
    public static let unknownAction = ErrorCode(.unknownAction)
    /// The daemon cannot answer this now (no launch yet, no such built-in, stopping).
    public static let unavailable = ErrorCode(.unavailable)

    // MARK: Phase error

    /// The launch ran past `timeout` (a soft error: work goes on).
    public static let timeout = ErrorCode(.timeout)
    /// A network failure: "Unable to connect".
    public static let network = ErrorCode(.network)
    /// A critical step failed for good.
    public static let stepFailed = ErrorCode(.stepFailed)
    /// A critical step was skipped because one of its dependencies did not succeed.
    public static let stepSkipped = ErrorCode(.stepSkipped)

    // MARK: Step failures

    /// An attempt ran past the step's timeout.
    public static let stepTimeout = ErrorCode(.stepTimeout)
    /// The attempt was stopped by the daemon.
    public static let cancelled = ErrorCode(.cancelled)
    /// A built-in step's options are wrong (a retry cannot fix a config).
    public static let badOptions = ErrorCode(.badOptions)
    /// The token endpoint refused the refresh for good (a 4xx other than `invalid_grant`).
    public static let authRejected = ErrorCode(.authRejected)
    /// An external plugin exited with 75 (EX_TEMPFAIL): retryable.
    public static let pluginTemporaryFailure = ErrorCode(.pluginTemporaryFailure)
    /// An external plugin exited with another non-zero code.
    public static let pluginExited = ErrorCode(.pluginExited)
    /// An external plugin was killed by a signal.
    public static let pluginSignaled = ErrorCode(.pluginSignaled)
    /// An external plugin could not be started.
    public static let pluginNotStartable = ErrorCode(.pluginNotStartable)
    /// Reading an external plugin's output failed.
    public static let pluginIOFailed = ErrorCode(.pluginIOFailed)
    /// A fetched config could not be stored in the cache (read-only, full, permissions) and there
    /// is no older cache or defaults to go on with: a retry cannot help.
    public static let cacheUnwritable = ErrorCode(.cacheUnwritable)

    // MARK: Socket protocol (added later)

    /// The daemon serves its maximum of clients (`[socket] max_clients`, or fewer for its
    /// descriptor limit); the connection is closed.
    public static let busy = ErrorCode(.busy)

    // MARK: Phase error (added later)

    /// The app stopped more than `[app] max_restarts` times within `restart_window`: nothing is
    /// restarted until Retry (design §14). "The app keeps stopping".
    public static let appCrashLoop = ErrorCode(.appCrashLoop)
}
