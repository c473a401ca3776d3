/// The one rule for every text a splash shows: a theme's texts (refused when they break it) and
/// every text a state carries (cleaned to it, whatever its source: a plugin's message or output,
/// psplash's `MSG`, RAUC, `splashctl update`, an error).
///
/// A shown text has none of these characters, which break a renderer's layout or make the text
/// read differently from what it holds:
///
/// - control characters: C0 (U+0000–U+001F, newlines and tabs included), DEL (U+007F) and C1
///   (U+0080–U+009F; pango breaks a line at U+0085 NEL);
/// - the line and paragraph separators U+2028 and U+2029;
/// - the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
///   reorder the text after them (U+202E shows `txt.exe` as `exe.txt`).
///
/// The bidirectional marks (U+200E, U+200F, U+061C) are kept: they reorder no letters, and
/// right-to-left texts need them. `LogEscaping` (a log line) escapes more: the marks and `\`.
public enum DisplayText {
    /// What a text with a refused character is told (a theme's `name must not contain …`).
    public static let problem = "must not contain control characters, line separators or bidirectional overrides"

    /// Whether `scalar` may not be in a shown text.
    public static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `scalar` ends a line: a state's text has a space in its place.
    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Whether `text` has a refused character (a scan over its bytes; the scalars are looked at
    /// only from the first byte that could start one).
    public static func isRefused(_ text: String) -> Bool {
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F {
            if byte < 0x80 { return true }
            return text.unicodeScalars.contains(where: isRefused)
        }
        return false
    }

    /// `text` with the rule applied, as a state carries it: a run of line breaks (newlines,
    /// tabs, vertical tab, form feed, NEL, the separators) is one space (none at either end, none
    /// beside a space), every other refused character is dropped; `text` itself when it has none.
    public static func cleaned(_ text: String) -> String {
        guard isRefused(text) else { return text }
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if breaksLine(scalar) {
                pendingSpace = true
            } else if !isRefused(scalar) {
                if pendingSpace, scalar != " ", let last = result.last, last != " " { result.append(" ") }
                pendingSpace = false
                result.append(scalar)
            }
        }
        return String(result)
    }
}
