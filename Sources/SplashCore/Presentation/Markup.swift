/// Text made safe for markup: SVG reports, the splash page's HTML.
public enum Markup {
    /// Escapes text for XML or HTML content and attribute values: `&`, `<`, `>`, `"` and `'` as
    /// character references; characters XML 1.0 cannot hold (controls but tab and newlines,
    /// U+FFFE, U+FFFF) become U+FFFD.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
