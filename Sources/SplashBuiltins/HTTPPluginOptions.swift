import SplashCore

/// Typed reading of a built-in HTTP plugin's `[step.options]`.
///
/// A value of the wrong type or a bad duration is a `StepFailure` with code `bad-option`, not
/// retryable (a retry cannot fix a config), whose message names the option and what it expects.
struct HTTPPluginOptions {
    /// The failure code of a bad option.
    static let badOptionCode: ErrorCode = .badOptions

    let plugin: String
    let values: [String: JSONValue]

    init(plugin: String, _ values: [String: JSONValue]) {
        self.plugin = plugin
        self.values = values
    }

    /// The failure for option `name` that is not `expected`.
    func failure(_ name: String, _ expected: String) -> StepFailure {
        StepFailure(
            code: Self.badOptionCode,
            message: "\(plugin): option \"\(name)\" must be \(expected)",
            retryable: false
        )
    }

    /// A string option; nil when absent or null. An empty string counts as absent.
    func string(_ name: String) throws(StepFailure) -> String? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        default: throw failure(name, "a string")
        }
    }

    /// A duration option (`"5s"`, `"250ms"`), or `fallback` when absent.
    func duration(_ name: String, default fallback: Duration) throws(StepFailure) -> Duration {
        let text: String
        switch values[name] {
        case nil, .null?: return fallback
        case .string(let value)?: text = value
        default: throw failure(name, "a duration string like \"5s\" or \"250ms\"")
        }
        do {
            return try DurationFormat.parse(text)
        } catch {
            throw failure(name, "a duration like \"5s\" or \"250ms\" (\(error))")
        }
    }

    /// A positive whole-number option, or `fallback` when absent.
    func positiveInteger(_ name: String, default fallback: Int) throws(StepFailure) -> Int {
        switch values[name] {
        case nil, .null?: return fallback
        case .number(let value)?:
            guard let whole = Int(exactly: value), whole > 0 else { throw failure(name, "a positive whole number") }
            return whole
        default: throw failure(name, "a positive whole number")
        }
    }
}
