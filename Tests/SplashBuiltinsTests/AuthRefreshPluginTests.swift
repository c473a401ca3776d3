import TestSupport
import Foundation
import SplashBuiltins
import SplashCore
import SplashJSON
import Testing

@Suite("auth-refresh", .timeLimit(.minutes(10)))
struct AuthRefreshPluginTests {
    /// Secrets used by the tests; none may leak.
    static let oldAccess = "old-access-SECRET-a1"
    static let oldRefresh = "old+refresh/SECRET=b2"
    static let newAccess = "new-access-SECRET-c3"
    static let newRefresh = "new-refresh-SECRET-d4"
    static let secrets = [oldAccess, oldRefresh, newAccess, newRefresh]

    /// Writes a session file expiring `expiresIn` seconds from now; returns its bytes.
    @discardableResult
    static func writeSession(_ h: AuthTestHarness, expiresIn: Int64, user: String? = "Ada") throws -> String {
        let userPart = user.map { #", "user": "\#($0)""# } ?? ""
        let text = #"{"access_token": "\#(oldAccess)", "refresh_token": "\#(oldRefresh)", "expires_at": \#(AuthTestHarness.unixNow() + expiresIn)\#(userPart)}"#
        try h.directory.write("session.json", text)
        chmod(h.directory.file("session.json"), 0o600)
        return text
    }

    /// The step's options: the harness's token endpoint, and a `request_timeout` no honest reply
    /// can miss however slow the machine is (a test of the timeout names its own, or runs on a
    /// test clock).
    static func options(_ h: AuthTestHarness, _ extra: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var options: [String: JSONValue] = [
            "token_url": .string(h.server.url("/token")), "client_id": "kiosk app", "request_timeout": "10m",
        ]
        options.merge(extra) { _, new in new }
        return options
    }

    static func run(_ h: AuthTestHarness, _ options: [String: JSONValue]) async throws -> Facts {
        try await AuthRefreshPlugin(device: h.device, http: h.http).run(h.context("auth-refresh", options: options))
    }

    static let granted = TestHTTPServer.Response.json(
        200,
        #"{"access_token": "\#(newAccess)", "refresh_token": "\#(newRefresh)", "expires_in": 3600, "token_type": "Bearer"}"#
    )

    @Test func noSessionIsSignedOutWithoutNetwork() async throws {
        try await AuthTestHarness.with { h in
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts == ["authenticated": false, "first_launch": true, "offline": false])
            #expect(h.server.requests.isEmpty)

            // Once a launch has finished on this device, it is no longer a first launch.
            try h.device.recordFinishedLaunch()
            let later = try await Self.run(h, Self.options(h))
            #expect(later["first_launch"] == false)
            #expect(later["authenticated"] == false)
        }
    }

    @Test func tokenValidBeyondSkewMakesNoRequest() async throws {
        try await AuthTestHarness.with { h in
            let before = try Self.writeSession(h, expiresIn: 3600)
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts == ["authenticated": true, "first_launch": false, "offline": false, "user": "Ada"])
            #expect(h.server.requests.isEmpty)
            #expect(h.directory.read("session.json") == before)
            h.expectNoLeak(of: Self.secrets, facts: facts)
        }
    }

    @Test func expiredSessionIsRefreshedAndStored() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: -600)
            // Even over a file others may read, the new session is written 0600.
            chmod(h.directory.file("session.json"), 0o644)
            h.server.enqueue(Self.granted)
            let start = AuthTestHarness.unixNow()
            let facts = try await Self.run(h, Self.options(h))
            let end = AuthTestHarness.unixNow()
            #expect(facts == ["authenticated": true, "first_launch": false, "offline": false, "user": "Ada"])

            let request = try #require(h.server.requests.first)
            #expect(h.server.requests.count == 1)
            #expect(request.method == "POST")
            #expect(request.path == "/token")
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(request.bodyText == "grant_type=refresh_token&refresh_token=old%2Brefresh%2FSECRET%3Db2&client_id=kiosk%20app")

            let path = h.directory.file("session.json")
            let stored = try #require(try SessionStore(path: path).read())
            #expect(stored.accessToken == Self.newAccess)
            #expect(stored.refreshToken == Self.newRefresh)
            #expect(stored.user == "Ada")
            #expect((start + 3600...end + 3600).contains(stored.expiresAt))
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            // No temporary file is left beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.directory.path) == ["session.json"])
            h.expectNoLeak(of: Self.secrets, facts: facts)
        }
    }

    @Test func grantWithoutRefreshTokenKeepsTheOldOne() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: 10, user: nil)
            h.server.enqueue(.json(200, #"{"access_token": "\#(Self.newAccess)", "expires_in": 120, "token_type": "Bearer"}"#))
            let facts = try await Self.run(h, Self.options(h, ["client_id": nil]))
            #expect(facts == ["authenticated": true, "first_launch": false, "offline": false])
            #expect(h.server.requests.first?.bodyText == "grant_type=refresh_token&refresh_token=old%2Brefresh%2FSECRET%3Db2")
            let stored = try #require(try SessionStore(path: h.directory.file("session.json")).read())
            #expect(stored.accessToken == Self.newAccess)
            #expect(stored.refreshToken == Self.oldRefresh)
        }
    }

    @Test func invalidGrantSignsOutAndRemovesTheSession() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: -600)
            h.server.enqueue(.json(400, #"{"error": "invalid_grant", "error_description": "token \#(Self.oldRefresh) revoked"}"#))
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts == ["authenticated": false, "first_launch": false, "offline": false])
            #expect(!h.directory.exists("session.json"))
            #expect(h.server.requests.count == 1)
            h.expectNoLeak(of: Self.secrets, facts: facts)
        }
    }

    @Test func serverDownWithAStillValidTokenContinuesOffline() async throws {
        try await AuthTestHarness.with { h in
            // Valid for 10 more minutes, but inside a one-hour skew: a refresh is due.
            let before = try Self.writeSession(h, expiresIn: 600)
            try await h.server.stop()
            let facts = try await Self.run(h, Self.options(h, ["skew": "1h", "request_timeout": "1s"]))
            #expect(facts == ["authenticated": true, "first_launch": false, "offline": true, "user": "Ada"])
            #expect(h.directory.read("session.json") == before)
            #expect(!h.records(atLeast: .warning).isEmpty)
            h.expectNoLeak(of: Self.secrets, facts: facts)
        }
    }

    @Test(arguments: [
        TestHTTPServer.Response.status(503),
        .json(200, "this is not json"),
        .json(200, #"{"token_type": "Bearer"}"#),
        .close,
    ])
    func unusableRepliesAreNetworkFailures(reply: TestHTTPServer.Response) async throws {
        try await AuthTestHarness.with { h in
            // With a still-valid token: offline.
            let before = try Self.writeSession(h, expiresIn: 600)
            h.server.enqueue(reply)
            let facts = try await Self.run(h, Self.options(h, ["skew": "1h"]))
            #expect(facts["offline"] == true)
            #expect(facts["authenticated"] == true)
            #expect(h.directory.read("session.json") == before)

            // With an expired one: "Unable to connect", retryable.
            try Self.writeSession(h, expiresIn: -600)
            h.server.enqueue(reply)
            let failure = try #require(await AuthTestHarness.stepFailure { try await Self.run(h, Self.options(h)) })
            #expect(failure.code == .network)
            #expect(failure.retryable)
            #expect(h.directory.exists("session.json"))
            h.expectNoLeak(of: Self.secrets, facts: facts, failure: failure)
        }
    }

    @Test func serverDownWithAnExpiredTokenFailsThenSucceedsOnceBack() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: -600)
            try await h.server.stop()
            let failure = try #require(
                await AuthTestHarness.stepFailure { try await Self.run(h, Self.options(h, ["request_timeout": "1s"])) }
            )
            #expect(failure.code == .network)
            #expect(failure.retryable)
            #expect(failure.message.hasPrefix("Unable to connect"))

            try await h.server.start()
            h.server.enqueue(Self.granted)
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts["authenticated"] == true)
            #expect(facts["offline"] == false)
            #expect(try SessionStore(path: h.directory.file("session.json")).read()?.accessToken == Self.newAccess)
            h.expectNoLeak(of: Self.secrets, facts: facts, failure: failure)
        }
    }

    @Test func otherClientErrorsFailForGood() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: -600)
            h.server.enqueue(.json(401, #"{"error": "invalid_client"}"#))
            let failure = try #require(await AuthTestHarness.stepFailure { try await Self.run(h, Self.options(h)) })
            #expect(failure.code == AuthRefreshPlugin.rejectedCode)
            #expect(!failure.retryable)
            #expect(failure.message.contains("401"))
            #expect(failure.message.contains("invalid_client"))
            #expect(h.directory.exists("session.json"))
        }
    }

    @Test func requestTimeoutWithAValidTokenContinuesOffline() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: 600)
            h.server.enqueue(.stall)
            // The time limit passes on a test clock, once the server has the request: however
            // slow the machine, the request was sent and then timed out.
            let clock = TestClock()
            let plugin = AuthRefreshPlugin(device: h.device, http: h.http, clock: clock)
            let context = h.context("auth-refresh", options: Self.options(h, ["skew": "1h", "request_timeout": "200ms"]))
            let task = Task { try await plugin.run(context) }
            #expect(await waitUntil { h.server.requests.count == 1 && !clock.pendingDeadlines.isEmpty })
            clock.advance(by: .milliseconds(199))
            #expect(h.server.requests.count == 1)
            clock.advance(by: .milliseconds(1))
            let facts = try #require(await result(of: task)).get()
            #expect(facts["offline"] == true)
            #expect(h.server.requests.count == 1)
        }
    }

    @Test func cancellationStopsARefreshPromptly() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: 600)
            h.server.enqueue(.stall)
            let plugin = AuthRefreshPlugin(device: h.device, http: h.http)
            let context = h.context("auth-refresh", options: Self.options(h, ["skew": "1h", "request_timeout": "1m"]))
            let task = Task { try await plugin.run(context) }
            #expect(await waitUntil { h.server.requests.count == 1 })
            task.cancel()
            // Cancelled, not "offline": the attempt was abandoned.
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test func withoutTokenURLTheSessionIsTakenAsItIs() async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: 600)
            let valid = try await Self.run(h, ["skew": "1h"])
            #expect(valid == ["authenticated": true, "first_launch": false, "offline": false, "user": "Ada"])

            let expired = try Self.writeSession(h, expiresIn: -1)
            let facts = try await Self.run(h, [:])
            #expect(facts == ["authenticated": false, "first_launch": false, "offline": false])
            // The session is kept: only the token endpoint may say it is revoked.
            #expect(h.directory.read("session.json") == expired)
            #expect(h.server.requests.isEmpty)
        }
    }

    @Test(arguments: [
        "not json at all",
        "[1, 2]",
        #"{"access_token": "old-access-SECRET-a1"}"#,
        #"{"access_token": "old-access-SECRET-a1", "refresh_token": "old+refresh/SECRET=b2", "expires_at": "soon"}"#,
        #"{"access_token": "", "refresh_token": "old+refresh/SECRET=b2", "expires_at": 1}"#,
        #"{"access_token": "old-access-SECRET-a1", "refresh_token": "old+refresh/SECRET=b2", "#,
    ])
    func malformedSessionFileIsSignedOutAndKept(content: String) async throws {
        try await AuthTestHarness.with { h in
            try h.directory.write("session.json", content)
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts == ["authenticated": false, "first_launch": false, "offline": false])
            #expect(h.directory.read("session.json") == content)
            #expect(h.server.requests.isEmpty)
            let errors = h.records(atLeast: .error)
            #expect(errors.count == 1)
            #expect(errors.first?.message.contains("malformed session file") == true)
            h.expectNoLeak(of: Self.secrets + [content], facts: facts)
        }
    }

    @Test func sessionOptionIsResolvedInTheStateDirectory() async throws {
        try await AuthTestHarness.with { h in
            let options: [String: JSONValue] = ["session": "auth/session.json"]
            func path(_ options: [String: JSONValue]) throws -> String {
                AuthRefreshPlugin.sessionPath(options: try AuthRefreshOptions(options: options), device: h.device)
            }
            #expect(try path(options) == h.directory.file("auth/session.json"))
            #expect(try path([:]) == h.directory.file("session.json"))
            #expect(try path(["session": "/etc/s.json"]) == "/etc/s.json")

            try h.directory.write("auth/session.json", #"{"access_token": "a", "refresh_token": "r", "expires_at": \#(AuthTestHarness.unixNow() + 3600)}"#)
            let facts = try await Self.run(h, options)
            #expect(facts["authenticated"] == true)
        }
    }

    @Test(arguments: [
        ("skew", JSONValue.string("soon")),
        ("skew", .number(60)),
        ("request_timeout", .string("5 parsecs")),
        ("token_url", .number(1)),
        ("client_id", .bool(true)),
        ("session", .array([])),
    ])
    func badOptionsFailForGoodWithAClearMessage(name: String, value: JSONValue) async throws {
        try await AuthTestHarness.with { h in
            try Self.writeSession(h, expiresIn: -600)
            let failure = try #require(await AuthTestHarness.stepFailure { try await Self.run(h, Self.options(h, [name: value])) })
            #expect(failure.code == .badOptions)
            #expect(!failure.retryable)
            #expect(failure.message.hasPrefix("auth-refresh: option '\(name)' "))
            #expect(h.server.requests.isEmpty)
        }
    }
}
