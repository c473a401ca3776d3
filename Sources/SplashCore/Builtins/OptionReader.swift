import SplashJSON

/// Typed reading of one built-in plugin's raw options, throwing `OptionError`s that name the option.
///
/// `null` counts as absent (options may come from JSON); an empty string counts as absent for
/// `string(_:)`.
struct OptionReader {
    let values: [String: JSONValue]

    /// Rejects any option not in `known`, naming the first in alphabetical order: a typo must not
    /// silently fall back to a default.
    init(_ values: [String: JSONValue], known: Set<String>) throws(OptionError) {
        if let unknown = values.keys.filter({ !known.contains($0) }).sorted().first {
            let list = known.isEmpty ? "it takes no options" : "known: \(known.sorted().joined(separator: ", "))"
            throw OptionError(option: unknown, message: "unknown option '\(unknown)' (\(list))")
        }
        self.values = values
    }

    /// The option's value; nil when absent or `null`.
    subscript(name: String) -> JSONValue? {
        if case .null? = values[name] { return nil }
        return values[name]
    }

    /// A string option; nil when absent, `null` or empty.
    func string(_ name: String, expected: String = "a string") throws(OptionError) -> String? {
        switch self[name] {
        case nil: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        case let other?: throw .option(name, "must be \(expected), not \(OptionError.show(other))")
        }
    }

    /// A duration option (`"5s"`, `"250ms"`), or `fallback` when absent.
    func duration(_ name: String, default fallback: Duration) throws(OptionError) -> Duration {
        let expected = "must be a duration like \"5s\" or \"250ms\""
        switch self[name] {
        case nil: return fallback
        case .string(let text)?:
            do {
                return try DurationFormat.parse(text)
            } catch {
                throw .option(name, "\(expected): \(error)")
            }
        case let other?: throw .option(name, "\(expected), not \(OptionError.show(other))")
        }
    }

    /// A whole-number option in `range`, or `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int, expected: String) throws(OptionError) -> Int {
        switch self[name] {
        case nil: return fallback
        case let value?:
            if case .number(let number) = value, let whole = Int(exactly: number), range.contains(whole) { return whole }
            throw .option(name, "must be \(expected), not \(OptionError.show(value))")
        }
    }
}
