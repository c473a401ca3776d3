/// The grammar of deep-link routes, shared by the config check and the quick-action router.
///
/// A route is a URL path without its leading `/`, as design §7 writes them: `shipthatapp://pokedex`
/// routes to `pokedex`, `kiosk://orders/42` to `orders/42`; `""` is the root. Paths listed in
/// `routes` and action routes are read with `normalized(_:)`, so a leading `/` is accepted and
/// ignored (`"/orders/*"` is `"orders/*"`).
///
/// A `routes` pattern is a route, matched exactly, or a route followed by `/*`, matching
/// everything below it (`orders/*` matches `orders/42` and `orders/42/items`, not `orders`); `*`
/// alone matches every route but the root. Routes are case-sensitive, do not end with `/`, and
/// have no empty, `.` or `..` segment, written plainly or percent-encoded (`%2e%2e`), and no
/// percent-encoded `/` (`%2F`, a separator an app that decodes the route would see); their
/// characters are those of a URL path, with `%` only before two hex digits; and they are at most
/// `maximumLength` bytes long, far below a state line's limit (a route is in the state, its
/// history and the journal, several times over).
public enum RoutePath {
    /// The longest route accepted, in bytes (2 KiB, as long as URLs that every browser takes).
    public static let maximumLength = 2048

    /// `text` without one leading `/`: how listed paths and action routes are read.
    public static func normalized(_ text: String) -> String {
        text.hasPrefix("/") ? String(text.dropFirst()) : text
    }

    /// Why `path` (normalized) is not a usable route; nil when it is.
    public static func problem(with path: String) -> String? {
        if path.isEmpty { return nil }
        if path.utf8.count > maximumLength { return "it is longer than \(maximumLength) bytes" }
        if path.hasSuffix("/") { return "it must not end with '/'" }
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.isEmpty { return "it has an empty segment ('//')" }
            // The segment as an app that decodes it sees it: only its dots matter here.
            var decodedDots = 0
            var other = false
            var bytes = segment.makeIterator()
            while let byte = bytes.next() {
                if byte == UInt8(ascii: "%") {
                    guard let high = bytes.next(), let low = bytes.next(), isHex(high), isHex(low) else {
                        return "it has a '%' not followed by two hex digits"
                    }
                    switch (high, low | 0x20) {
                    case (UInt8(ascii: "2"), UInt8(ascii: "e")): decodedDots += 1
                    case (UInt8(ascii: "2"), UInt8(ascii: "f")): return "it has a percent-encoded '/' (%2F)"
                    default: other = true
                    }
                } else if !isPathByte(byte) {
                    return "it has a character not allowed in a URL path"
                } else if byte == UInt8(ascii: ".") {
                    decodedDots += 1
                } else {
                    other = true
                }
            }
            if !other && (decodedDots == 1 || decodedDots == 2) {
                return segment.contains(UInt8(ascii: "%")) ? "it has a percent-encoded '.' or '..' segment" : "it has a '.' or '..' segment"
            }
        }
        return nil
    }

    /// Why `pattern` (normalized) is not a usable `routes` entry; nil when it is.
    public static func problem(withPattern pattern: String) -> String? {
        if pattern == "*" { return nil }
        let base = pattern.hasSuffix("/*") ? String(pattern.dropLast(2)) : pattern
        if base.contains("*") { return "'*' is only supported as a whole last segment ('orders/*')" }
        if pattern.hasSuffix("/*") && base.isEmpty { return "it has an empty segment ('//')" }
        return problem(with: base)
    }

    /// Whether route `path` matches the (normalized) `routes` entry `pattern`.
    public static func matches(_ path: String, pattern: String) -> Bool {
        if pattern == "*" { return !path.isEmpty }
        if pattern.hasSuffix("/*") {
            let prefix = pattern.dropLast()
            return path.count > prefix.count && path.hasPrefix(prefix)
        }
        return pattern == path
    }

    /// The scheme of `text` (before the first `:`), when it is a well-formed URL scheme: a letter,
    /// then letters, digits, `+`, `-` or `.`.
    public static func scheme(of text: String) -> Substring? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        let allowed = scheme.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
        return allowed ? scheme : nil
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// RFC 3986 `pchar` without `%`: unreserved, sub-delims, `:` and `@`.
    private static func isPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@".utf8.contains(byte)
        }
    }
}
