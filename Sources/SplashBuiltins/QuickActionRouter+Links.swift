/// Deep-link parsing: scheme, host-and-path forms, path checks. See `QuickActionRouter`.
extension QuickActionRouter {
    /// A parsed deep link.
    struct Link: Equatable {
        /// The link without query and fragment.
        var address: String
        /// The route: `/` followed by the host (if any) and the path.
        var path: String
    }

    /// The scheme of `text` (before the first `:`), when it is a well-formed URL scheme.
    static func scheme(of text: String) -> Substring? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        let allowed = scheme.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
        return allowed ? scheme : nil
    }

    /// Parses `url` as a link of `scheme` (lowercase); nil for another scheme or a malformed link.
    static func parseLink(_ url: String, scheme: String) -> Link? {
        guard let found = Self.scheme(of: url), found.lowercased() == scheme else { return nil }
        let rest = url[url.index(after: found.endIndex)...]
        let end = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        let hierarchy = rest[..<end]
        let address = String(url[..<end])
        var path: String
        if hierarchy.hasPrefix("//") {
            let authorityAndPath = hierarchy.dropFirst(2)
            let slash = authorityAndPath.firstIndex(of: "/") ?? authorityAndPath.endIndex
            let host = authorityAndPath[..<slash]
            guard !host.contains("@"), !host.contains(":") else { return nil }
            path = host.isEmpty ? String(authorityAndPath[slash...]) : "/" + authorityAndPath
        } else if hierarchy.hasPrefix("/") {
            path = String(hierarchy)
        } else {
            return nil
        }
        if path.isEmpty { path = "/" }
        if path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard problem(withPath: path) == nil else { return nil }
        return Link(address: address, path: path)
    }

    /// Why `path` is not a usable route (absolute, clean segments, URL path characters); nil when it is.
    static func problem(withPath path: String) -> String? {
        guard path.hasPrefix("/") else { return "it must start with '/'" }
        if path == "/" { return nil }
        if path.hasSuffix("/") { return "it must not end with '/'" }
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            if segment.isEmpty { return "it has an empty segment ('//')" }
            if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { return "it has a '.' or '..' segment" }
            var bytes = segment.makeIterator()
            while let byte = bytes.next() {
                if byte == UInt8(ascii: "%") {
                    guard let high = bytes.next(), let low = bytes.next(), isHex(high), isHex(low) else {
                        return "it has a '%' not followed by two hex digits"
                    }
                } else if !isPathByte(byte) {
                    return "it has a character not allowed in a URL path"
                }
            }
        }
        return nil
    }

    /// Why `pattern` is not a usable `routes` entry; nil when it is.
    static func problem(withRoutePattern pattern: String) -> String? {
        let base = pattern.hasSuffix("/*") ? String(pattern.dropLast(2)) : pattern
        if base.contains("*") { return "'*' is only supported as a whole last segment ('/orders/*')" }
        if pattern.hasSuffix("/*") && base.isEmpty { return nil }
        return problem(withPath: base)
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

extension QuickInput {
    /// The input for logs: a link without its query and fragment (they may carry tokens), cut to
    /// 200 characters.
    var loggable: String {
        var text: String
        switch self {
        case .action(let name):
            text = name
        case .open(let url):
            let end = url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
            text = String(url[..<end])
            if end != url.endIndex { text += "?…" }
        }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
