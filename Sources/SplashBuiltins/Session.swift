import SplashCore
public import SplashJSON

/// A signed-in user's OAuth 2.0 tokens, as stored in the session file.
///
/// The file is a JSON object, mode 0600:
/// `{"access_token": "…", "refresh_token": "…", "expires_at": 1795337147, "user": "Ada"}`
/// (`expires_at` in Unix seconds, `user` optional). Printing a session (`description`,
/// `debugDescription`, `dump`) never shows its tokens.
public struct Session: Sendable, Equatable {
    /// Why a session object was rejected; never quotes a token.
    public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, e.g. `missing "refresh_token"`.
        public var reason: String
        public var description: String { "bad session: \(reason)" }

        public init(reason: String) { self.reason = reason }
    }

    /// The bearer token the app sends with its requests.
    public var accessToken: String
    /// Exchanged at the token endpoint for a new access token.
    public var refreshToken: String
    /// When the access token stops being valid, in Unix seconds.
    public var expiresAt: Int64
    /// The signed-in user's display name, if known.
    public var user: String?

    public init(accessToken: String, refreshToken: String, expiresAt: Int64, user: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.user = user
    }

    /// Reads a session from its JSON object (the session file, or `sign-in`'s `session`).
    ///
    /// `access_token` and `refresh_token` must be non-empty strings, `expires_at` a whole number
    /// of Unix seconds, `user` a string, null or absent. Other members are ignored.
    public init(json: [String: JSONValue]) throws(FormatError) {
        func token(_ name: String) throws(FormatError) -> String {
            guard let member = json[name] else { throw FormatError(reason: "missing \"\(name)\"") }
            guard let text = member.stringValue, !text.isEmpty else {
                throw FormatError(reason: "\"\(name)\" must be a non-empty string")
            }
            return text
        }
        accessToken = try token("access_token")
        refreshToken = try token("refresh_token")
        guard let expiry = json["expires_at"] else { throw FormatError(reason: "missing \"expires_at\"") }
        guard let seconds = expiry.numberValue, let whole = Int64(exactly: seconds) else {
            throw FormatError(reason: "\"expires_at\" must be a whole number of Unix seconds")
        }
        expiresAt = whole
        switch json["user"] {
        case nil, .null?: user = nil
        case .string(let name)?: user = name
        default: throw FormatError(reason: "\"user\" must be a string")
        }
    }

    /// The session as the bytes of the session file (a JSON object and a newline).
    public var fileBytes: [UInt8] {
        var writer = JSONWriter()
        writer.object { writer in
            writer.key("access_token")
            writer.string(accessToken)
            writer.key("refresh_token")
            writer.string(refreshToken)
            writer.key("expires_at")
            writer.int(expiresAt)
            if let user {
                writer.key("user")
                writer.string(user)
            }
        }
        return writer.bytes + [0x0A]
    }

    /// Whether the access token is still valid at `now` (Unix seconds).
    public func isValid(at now: Int64) -> Bool { now < expiresAt }

    /// Whether the access token stays valid for more than `margin` seconds after `now`.
    public func isValid(at now: Int64, beyond margin: Int64) -> Bool {
        now.addingReportingOverflow(margin).partialValue < expiresAt
    }
}

extension Session: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The session with its tokens redacted.
    public var description: String {
        "Session(user: \(user.map { "\"\($0)\"" } ?? "nil"), expiresAt: \(expiresAt), tokens: <redacted>)"
    }

    public var debugDescription: String { description }

    /// Children without the tokens, so `dump` and reflection cannot show them.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user as Any, "expiresAt": expiresAt, "tokens": "<redacted>"])
    }
}
