/// Parsing and printing of the duration strings used in configs and on the command line.
///
/// A duration is one or more `<number><unit>` parts, summed: `"250ms"`, `"1.5s"`, `"2m"`,
/// `"1m30s"`. Units: `us`, `ms`, `s`, `m`, `h`. A bare `"0"` is zero.
public enum DurationFormat {
    /// Why a duration string was rejected.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The text that was rejected.
        public var text: String
        public var description: String {
            "bad duration \"\(text)\": expected a number with a unit (us, ms, s, m, h), e.g. \"250ms\", \"1.5s\", \"2m\""
        }
    }

    /// Parses `text` into a `Duration`.
    public static func parse(_ text: String) throws(ParseError) -> Duration {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed == "0" { return .zero }
        var rest = Substring(trimmed)
        guard !rest.isEmpty else { throw ParseError(text: text) }
        var total: Duration = .zero
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number != ".",
                let value = Double(number), value.isFinite
            else { throw ParseError(text: text) }
            let scale: Double
            switch unit {
            case "us": scale = 1e-6
            case "ms": scale = 1e-3
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            default: throw ParseError(text: text)
            }
            let seconds = value * scale
            guard seconds < 1e9 else { throw ParseError(text: text) }
            total += .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        return total
    }

    /// Formats a duration compactly, the way configs write them: `"250ms"`, `"1.5s"`, `"2m"`.
    public static func format(_ duration: Duration) -> String {
        let ms = duration.milliseconds
        if ms % 60_000 == 0 && ms >= 60_000 { return "\(ms / 60_000)m" }
        if ms % 1000 == 0 && ms >= 1000 { return "\(ms / 1000)s" }
        if ms >= 1000 {
            let tenths = (Double(ms) / 100).rounded() / 10
            return "\(tenths)s"
        }
        return "\(ms)ms"
    }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in seconds as a floating-point number.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[start...end])
    }
}
