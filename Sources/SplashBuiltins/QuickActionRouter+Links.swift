import SplashCore
import SplashPlugins
import SplashProtocol

/// Deep-link parsing: scheme, host-and-path forms, path checks. See `QuickActionRouter`.
extension QuickActionRouter {
    /// A parsed deep link.
    struct Link: Equatable {
        /// The link without query and fragment.
        var address: String
        /// The route: the host (if any) and the path, without a leading `/` (`RoutePath`).
        var path: String
    }

    /// Parses `url` as a link of `scheme` (lowercase); nil for another scheme or a malformed link.
    static func parseLink(_ url: String, scheme: String) -> Link? {
        guard let found = RoutePath.scheme(of: url), found.lowercased() == scheme else { return nil }
        let rest = url[url.index(after: found.endIndex)...]
        let end = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        let hierarchy = rest[..<end]
        let address = String(url[..<end])
        var written = hierarchy
        if hierarchy.hasPrefix("//") {
            // The host is the first segment; after an empty host the path follows.
            written = hierarchy.dropFirst(2)
            let host = written.prefix { $0 != "/" }
            guard !host.contains("@"), !host.contains(":") else { return nil }
        } else if !hierarchy.hasPrefix("/") {
            return nil
        }
        var path = RoutePath.normalized(String(written))
        if path.hasSuffix("/") { path.removeLast() }
        guard RoutePath.problem(with: path) == nil else { return nil }
        return Link(address: address, path: path)
    }
}

extension QuickInput {
    /// The input for logs: a link without its query and fragment (they may carry tokens), as a
    /// short excerpt (`LogExcerpt`; the log handlers escape it): spool files and clients write it.
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
        return LogExcerpt.of(text)
    }
}
