public import SplashJSON

/// The options of a `launch-counter` step, checked.
///
/// | option | type | default |
/// |---|---|---|
/// | `min_launches` | integer ≥ 1 | 5 |
/// | `version` | non-empty string (the app version) | `"unknown"` |
/// | `count_when` | `"signed-in"` or `"always"` | `"signed-in"` |
/// | `file` | path, relative to the state directory | `launch-counter.json` |
public struct LaunchCounterOptions: BuiltinPluginOptions {
    /// Which launches are counted.
    public enum CountWhen: String, Sendable, Equatable {
        /// Only launches where a dependency reported `authenticated: true`.
        case signedIn = "signed-in"
        /// Every launch.
        case always
    }

    public static let plugin = BuiltinPlugin.launchCounter
    public static let knownOptions: Set<String> = ["min_launches", "version", "count_when", "file"]
    /// The counter file used when `file` is not set.
    public static let defaultFile = "launch-counter.json"

    /// The count at which the review prompt is due.
    public var minLaunches: Int
    /// The app version; each version is prompted at most once.
    public var version: String
    /// `count_when`: which launches are counted.
    public var countWhen: CountWhen
    /// The counter file, absolute or relative to the state directory.
    public var file: String

    /// The options of a step that sets none.
    public init() {
        minLaunches = 5
        version = "unknown"
        countWhen = .signedIn
        file = Self.defaultFile
    }

    /// Checks a `launch-counter` step's raw options, throwing about the first bad one.
    public init(options: [String: JSONValue]) throws(OptionError) {
        let reader = try OptionReader(options, known: Self.knownOptions)
        self.init()
        minLaunches = try reader.integer(
            "min_launches", in: 1...1_000_000_000, default: minLaunches, expected: "a whole number ≥ 1"
        )
        switch reader["version"] {
        case nil: break
        case .string(let value)? where !value.allSatisfy(\.isWhitespace): version = value
        case let other?: throw .option("version", "must be a non-empty string such as \"1.4.2\", not \(OptionError.show(other))")
        }
        switch reader["count_when"] {
        case nil: break
        case .string(let value)? where CountWhen(rawValue: value) != nil: countWhen = CountWhen(rawValue: value)!
        case let other?: throw .option("count_when", "must be \"signed-in\" or \"always\", not \(OptionError.show(other))")
        }
        switch reader["file"] {
        case nil: break
        case .string(let value)? where !value.isEmpty && !value.hasSuffix("/"): file = value
        case let other?: throw .option("file", "must be a file path, not \(OptionError.show(other))")
        }
    }
}
