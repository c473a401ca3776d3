import SplashJSON
/// A short excerpt of text from outside the daemon — a file, a server's reply, a plugin's
/// output — for a log line: at most `limit` characters, then `…`.
///
/// Only the length is cut here. Escaping is the log handlers' job, done once for every record
/// (`LogEscaping`: control characters, separators and bidirectional marks are written as escapes
/// in text, JSON and journal output); escaping here too would show `\\n` for a newline.
public enum LogExcerpt {
    /// The default number of characters kept.
    public static let defaultLimit = 80

    /// The excerpt of `text`: its first `limit` Unicode scalars, then `…` when there were more.
    public static func of(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        let scalars = text.unicodeScalars
        guard let cut = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex),
              cut != scalars.endIndex
        else { return String(text) }
        var out = String(String.UnicodeScalarView(scalars[..<cut]))
        out += "…"
        return out
    }
}
