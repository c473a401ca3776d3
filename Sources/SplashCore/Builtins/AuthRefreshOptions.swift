public import SplashJSON

/// The options of an `auth-refresh` step, checked.
///
/// | option | type | default |
/// |---|---|---|
/// | `token_url` | string: the OAuth 2.0 token endpoint | none: the stored session is taken as it is |
/// | `client_id` | string, sent with the refresh grant | none |
/// | `session` | path, relative to the state directory | `session.json` |
/// | `skew` | duration: refresh when the token expires within it | `"60s"` |
/// | `request_timeout` | duration of the whole request | `"5s"` |
///
/// An empty string counts as not set.
public struct AuthRefreshOptions: BuiltinPluginOptions {
    public static let plugin = BuiltinPlugin.authRefresh
    public static let knownOptions: Set<String> = ["token_url", "client_id", "session", "skew", "request_timeout"]
    /// The session file used when `session` is not set.
    public static let defaultSession = "session.json"

    /// `token_url`: the OAuth 2.0 token endpoint; nil: the stored session is taken as it is.
    public var tokenURL: String?
    /// `client_id`, sent with the refresh grant.
    public var clientID: String?
    /// The session file, absolute or relative to the state directory.
    public var session: String
    /// `skew`: refresh when the access token expires within this.
    public var skew: Duration
    /// `request_timeout`: the whole token request.
    public var requestTimeout: Duration

    /// The options of a step that sets none.
    public init() {
        tokenURL = nil
        clientID = nil
        session = Self.defaultSession
        skew = .seconds(60)
        requestTimeout = .seconds(5)
    }

    /// Checks an `auth-refresh` step's raw options, throwing about the first bad one.
    public init(options: [String: JSONValue]) throws(OptionError) {
        let reader = try OptionReader(options, known: Self.knownOptions)
        self.init()
        tokenURL = try reader.string("token_url")
        clientID = try reader.string("client_id")
        session = try reader.string("session", expected: "a path string") ?? Self.defaultSession
        skew = try reader.duration("skew", default: skew)
        requestTimeout = try reader.duration("request_timeout", default: requestTimeout)
    }
}
