/// Makes text that came from outside (a client, a plugin, a config) safe to put in a log line.
///
/// A log line must stay one line, and what a terminal shows must be what the line holds. So a
/// record's text never carries, as they are:
///
/// - ASCII control characters (C0, U+0000–U+001F) and DEL (U+007F): a newline would start a
///   forged record, an escape (U+001B) would drive the terminal. They are written `\n`, `\r`,
///   `\t`, or `\xNN` (two lower-case hex digits): `\x1b`.
/// - C1 control characters (U+0080–U+009F; U+009B is a CSI for some terminals), the line and
///   paragraph separators U+2028 and U+2029, and the bidirectional marks and overrides (U+061C,
///   U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which make a line read differently from
///   what it holds. They are written `\uNNNN` (four lower-case hex digits): `\u202e`.
/// - The backslash itself, written `\\`, so an escape in a line always comes from the escaping.
///
/// Everything else, including any other non-ASCII text, is kept as it is.
public enum LogEscaping {
    /// Whether `scalar` is written escaped.
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x5C, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `scalar` is one of the non-ASCII characters written as `\uNNNN` (C1 controls,
    /// separators and bidirectional formatting); the ASCII ones have short forms.
    public static func isInvisibleFormatting(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 && isEscaped(scalar)
    }

    /// Whether `text` has anything to escape (a scan over its bytes that stops at the first
    /// byte that could be one).
    public static func needsEscaping(_ text: String) -> Bool {
        for byte in text.utf8 where byte < 0x20 || byte == 0x5C || byte >= 0x7F {
            // Non-ASCII: only a few scalars are escaped; look at them one by one.
            if byte < 0x80 { return true }
            return text.unicodeScalars.contains(where: isEscaped)
        }
        return false
    }

    /// `text` with every escaped character written as described above; `text` itself when it
    /// has none.
    public static func escaped(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isEscaped(scalar) else {
                result.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": result.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": result.append(contentsOf: #"\t"#.unicodeScalars)
            case "\\": result.append(contentsOf: #"\\"#.unicodeScalars)
            default:
                let digits = scalar.value < 0x80 ? 2 : 4
                result.append(contentsOf: (scalar.value < 0x80 ? #"\x"# : #"\u"#).unicodeScalars)
                result.append(contentsOf: hex(scalar.value, digits: digits).unicodeScalars)
            }
        }
        return String(result)
    }

    /// `value` as `digits` lower-case hex digits.
    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
