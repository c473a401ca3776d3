public import SplashCore

/// The options of a `launch-counter` step, checked.
///
/// | option | type | default |
/// |---|---|---|
/// | `min_launches` | integer ≥ 1 | 5 |
/// | `version` | non-empty string (the app version) | `"unknown"` |
/// | `count_when` | `"signed-in"` or `"always"` | `"signed-in"` |
/// | `file` | path, relative to the state directory | `launch-counter.json` |
///
/// Unknown options are rejected, so a typo (`min_launch`) does not silently fall back to a default.
public struct LaunchCounterOptions: Sendable, Equatable {
    /// Which launches are counted.
    public enum CountWhen: String, Sendable, Equatable {
        /// Only launches where a dependency reported `authenticated: true`.
        case signedIn = "signed-in"
        /// Every launch.
        case always
    }

    /// The count at which the review prompt is due.
    public var minLaunches: Int
    /// The app version; each version is prompted at most once.
    public var version: String
    public var countWhen: CountWhen
    /// The counter file, absolute or relative to the state directory.
    public var file: String

    /// The counter file used when `file` is not set.
    public static let defaultFile = "launch-counter.json"
    /// The option names this plugin knows.
    public static let knownOptions: Set<String> = ["min_launches", "version", "count_when", "file"]

    /// Checks `options`; throws a `StepFailure` (code `bad-options`, not retryable) naming the bad one.
    public init(options: [String: JSONValue]) throws(StepFailure) {
        if let unknown = options.keys.filter({ !Self.knownOptions.contains($0) }).sorted().first {
            throw Self.bad("unknown option '\(unknown)' (known: \(Self.knownOptions.sorted().joined(separator: ", ")))")
        }
        switch options["min_launches"] {
        case nil: minLaunches = 5
        case .number(let value)? where value.rounded() == value && value >= 1 && value <= 1_000_000_000:
            minLaunches = Int(value)
        case let other?: throw Self.bad("option 'min_launches' must be a whole number ≥ 1, not \(Self.show(other))")
        }
        switch options["version"] {
        case nil: version = "unknown"
        case .string(let value)? where !value.allSatisfy(\.isWhitespace): version = value
        case let other?: throw Self.bad("option 'version' must be a non-empty string such as \"1.4.2\", not \(Self.show(other))")
        }
        switch options["count_when"] {
        case nil: countWhen = .signedIn
        case .string(let value)? where CountWhen(rawValue: value) != nil: countWhen = CountWhen(rawValue: value)!
        case let other?: throw Self.bad("option 'count_when' must be \"signed-in\" or \"always\", not \(Self.show(other))")
        }
        switch options["file"] {
        case nil: file = Self.defaultFile
        case .string(let value)? where !value.isEmpty && !value.hasSuffix("/"): file = value
        case let other?: throw Self.bad("option 'file' must be a file path, not \(Self.show(other))")
        }
    }

    private static func bad(_ message: String) -> StepFailure {
        StepFailure(code: .badOptions, message: "launch-counter: \(message)", retryable: false)
    }

    private static func show(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }
}
