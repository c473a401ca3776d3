#if canImport(Glibc)
import Glibc
#endif
import Logging
public import SplashCore
public import SplashJSON
public import SplashPlugins
public import SplashProtocol

/// The `auth-refresh` built-in: is a user signed in, refreshing the session's tokens if needed.
///
/// Options: `AuthRefreshOptions` (`token_url`, `client_id`, `session` (default `session.json` in
/// the state directory), `skew` (default `"60s"`), `request_timeout` (default `"5s"`)), read
/// from the step's parsed options.
///
/// | session file | what happens | facts |
/// |---|---|---|
/// | none | no network | `authenticated: false`, `first_launch` if no launch ever finished |
/// | malformed | error logged (never its content); file left in place | `authenticated: false` |
/// | valid beyond `skew` | no network | `authenticated: true` |
/// | else, no `token_url` | taken as it is: signed in while not expired | `authenticated` = not expired |
/// | else, grant 200 | new tokens stored atomically (0600) | `authenticated: true` |
/// | else, `invalid_grant` | session file removed | `authenticated: false` |
/// | else, network failure | token not yet expired: go on offline; else `StepFailure.network` | `offline: true` |
/// | else, other 4xx | failure, not retryable | |
///
/// Facts: `authenticated`, `first_launch`, `offline`, and `user` while signed in. Tokens never
/// reach logs, facts or failures.
public struct AuthRefreshPlugin: StepPlugin {
    /// The failure code when the token endpoint refuses the request for good (other 4xx).
    public static let rejectedCode: ErrorCode = .authRejected

    let device: DeviceState
    let http: SharedHTTPClient
    /// The current time in Unix seconds.
    let now: @Sendable () -> Int64
    /// The clock `request_timeout` passes on.
    let clock: any Clock<Duration>

    /// Creates the plugin for the device's state directory, sending requests with `http`'s
    /// client (created at the first request), each limited by `request_timeout` on `clock`.
    public init(device: DeviceState, http: SharedHTTPClient, clock: any Clock<Duration> = ContinuousClock()) {
        self.init(device: device, http: http, now: { Int64(time(nil)) }, clock: clock)
    }

    init(
        device: DeviceState,
        http: SharedHTTPClient,
        now: @escaping @Sendable () -> Int64,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.device = device
        self.http = http
        self.now = now
        self.clock = clock
    }

    /// The session file for a step's options: `session` resolved in the state directory.
    public static func sessionPath(options: AuthRefreshOptions, device: DeviceState) -> String {
        device.resolve(options.session)
    }

    /// Decides whether a user is signed in; see the type's table.
    public func run(_ context: StepContext) async throws -> Facts {
        let logger = context.logger
        let options = try context.run.step.builtinOptions(AuthRefreshOptions.self)
        let store = SessionStore(path: Self.sessionPath(options: options, device: device))

        let stored: Session?
        do {
            stored = try store.read()
        } catch {
            logger.error("\(error); treated as signed out, the file is left in place")
            return Self.facts(authenticated: false, firstLaunch: false)
        }
        guard let session = stored else {
            logger.info("no session: not signed in")
            return Self.facts(authenticated: false, firstLaunch: !device.hasFinishedLaunch)
        }
        let now = self.now()
        if session.isValid(at: now, beyond: Int64(options.skew.seconds.rounded(.up))) {
            logger.info("access token valid until \(session.expiresAt): signed in")
            return Self.facts(authenticated: true, user: session.user)
        }
        guard let tokenURL = options.tokenURL else {
            let valid = session.isValid(at: now)
            logger.notice(
                "access token \(valid ? "expires soon" : "expired") and no token_url to refresh it: \(valid ? "signed in" : "signed out")"
            )
            return Self.facts(authenticated: valid, user: valid ? session.user : nil)
        }

        context.report(.message("Signing in"))
        let endpoint = AuthTokenEndpoint(
            url: tokenURL,
            clientID: options.clientID,
            fetch: HTTPFetch(client: http.client, timeout: options.requestTimeout, maxBytes: AuthTokenEndpoint.replyLimit, clock: clock)
        )
        switch try await endpoint.refresh(session.refreshToken) {
        case .granted(let grant):
            let refreshed = Session(
                accessToken: grant.accessToken,
                refreshToken: grant.refreshToken ?? session.refreshToken,
                expiresAt: now + (grant.expiresIn ?? Self.assumedLifetime),
                user: session.user
            )
            do {
                try store.write(refreshed)
                logger.info("session refreshed, access token valid until \(refreshed.expiresAt)")
            } catch {
                // Signed in for this launch; the next one refreshes again.
                logger.error("session refreshed but not stored: \(error)")
            }
            return Self.facts(authenticated: true, user: refreshed.user)
        case .invalidGrant:
            logger.notice("refresh token rejected (invalid_grant): session expired, signed out")
            do {
                try store.remove()
            } catch {
                logger.error("\(error)")
            }
            return Self.facts(authenticated: false, firstLaunch: false)
        case .unavailable(let reason) where session.isValid(at: now):
            logger.warning("cannot refresh the session (\(reason)); access token still valid: signed in, offline")
            return Self.facts(authenticated: true, user: session.user, offline: true)
        case .unavailable(let reason):
            logger.error("cannot refresh the expired session: \(reason)")
            throw StepFailure.network(reason)
        case .rejected(let reason):
            logger.error("cannot refresh the session: \(reason)")
            throw StepFailure(code: Self.rejectedCode, message: reason, retryable: false)
        }
    }

    /// The lifetime taken for a new access token whose grant has no `expires_in` (one hour).
    static let assumedLifetime: Int64 = 3600

    static func facts(
        authenticated: Bool,
        firstLaunch: Bool = false,
        user: String? = nil,
        offline: Bool = false
    ) -> Facts {
        var facts: Facts = [
            "authenticated": .bool(authenticated),
            "first_launch": .bool(firstLaunch),
            "offline": .bool(offline),
        ]
        if let user { facts["user"] = .string(user) }
        return facts
    }
}
