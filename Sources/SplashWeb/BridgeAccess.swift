import SplashCore
public import SplashProtocol

/// Who may talk to the bridge, and what a page may ask of the daemon. Pure: no I/O.
///
/// - Every HTTP request must name the bridge itself in `Host` (`127.0.0.1:8177`, `localhost:8177`):
///   a DNS-rebinding page under another name gets 403 before anything is served.
/// - A WebSocket is refused outright when its `Origin` is another site's; a browser always sends
///   one, so only the bridge's own page connects from a browser.
/// - A WebSocket whose URL carries the per-start `token` may send renderer commands; one without a
///   token is a read-only viewer (states and events only); a wrong token is refused.
/// - Renderer commands are `dismissed`, `retry`, `continue-offline` and `complete` of the theme's
///   `app_step` only, and `ping` from anyone; anything else is answered `permission-denied` and
///   never reaches the daemon.
public struct BridgeAccess: Sendable {
    /// The `host:port` forms this bridge answers to.
    public let authorities: Set<String>
    /// The origins of the bridge's own page (`http://` + an authority).
    public let origins: Set<String>
    /// The per-start secret of the printed URL.
    public let token: String
    /// The one `signal` step a page may complete (the theme's `app_step`).
    public let appStep: String?

    /// The access rules of a bridge listening on `host:port` with `token`.
    public init(host: String, port: Int, token: String, appStep: String?) {
        var hosts: Set<String> = [host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
        if host == "127.0.0.1" || host == "::1" || host == "localhost" { hosts.formUnion(["127.0.0.1", "localhost", "[::1]"]) }
        authorities = Set(hosts.map { "\($0):\(port)" })
        origins = Set(authorities.map { "http://\($0)" })
        self.token = token
        self.appStep = appStep
    }

    /// What a WebSocket request may do.
    public enum Grant: Sendable, Equatable {
        /// Commands allowed.
        case control
        /// States and events only.
        case viewer
        /// Refused, with the reason for the 403 reply.
        case refused(String)
    }

    /// Whether `host` (the `Host` header) names this bridge.
    public func acceptsHost(_ host: String?) -> Bool {
        guard let host else { return false }
        return authorities.contains(host.lowercased())
    }

    /// The grant of a WebSocket upgrade with these `Origin` and `Host` headers and URL query.
    public func grant(origin: String?, host: String?, query: String?) -> Grant {
        guard acceptsHost(host) else { return .refused("unknown host") }
        if let origin, !origins.contains(origin.lowercased()) { return .refused("foreign origin") }
        guard let given = Self.queryValue("token", in: query) else { return .viewer }
        guard Self.constantTimeEqual(given, token) else { return .refused("wrong token") }
        // A token is only honoured from the bridge's own page (a browser always sends Origin).
        return origin == nil ? .viewer : .control
    }

    /// Checks one line a page sent; the request to forward, or the error to answer with.
    public func check(_ line: some Collection<UInt8>, grant: Grant) -> Result<Request, ProtocolError> {
        let request: Request
        switch Request.parse(line) {
        case .success(let parsed): request = parsed
        case .failure(let error): return .failure(error)
        }
        let denied = { (message: String) in
            Result<Request, ProtocolError>.failure(ProtocolError(code: .permissionDenied, message: message, id: request.id))
        }
        switch request.command {
        case .ping: return .success(request)
        case .state: return denied("the bridge relays every state to its pages: there is no need to ask")
        case .dismissed, .retry, .continueOffline:
            return grant == .control ? .success(request) : denied("this page was opened without the bridge's token")
        case .complete(let step):
            guard grant == .control else { return denied("this page was opened without the bridge's token") }
            guard step == appStep else { return denied("the page may complete only the theme's app_step") }
            return .success(request)
        default:
            return denied("\(request.command.name) is not a renderer command")
        }
    }

    /// The value of `name` in a URL query (`a=1&token=x`), percent-decoding not needed for tokens.
    static func queryValue(_ name: String, in query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }

    /// Compares two strings in time that depends only on their lengths.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
