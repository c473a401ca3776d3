/// A short, escaped excerpt of text from outside the daemon — a file, a server's reply, a
/// plugin's output — fit for a log line or a state.
///
/// Control characters (C0, DEL, C1), Unicode format characters (such as bidirectional overrides)
/// and line separators are written as `\n`, `\r`, `\t` or `\u{XX}`, and a backslash as `\\`, so
/// the excerpt is one line and cannot forge another or drive a terminal. It keeps at most
/// `limit` characters of the text, then `…`.
public enum LogExcerpt {
    /// The default number of characters kept.
    public static let defaultLimit = 80

    /// The excerpt of `text`.
    public static func of(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        var out = ""
        var kept = 0
        for scalar in text.unicodeScalars {
            if kept == limit {
                out += "…"
                break
            }
            kept += 1
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            default:
                if needsEscape(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default: return scalar.properties.generalCategory == .format
        }
    }
}
