import Foundation
import SplashBuiltins
import SplashCore
import Testing
import TestSupport

/// A token endpoint's `error` reaches logs and failures only when it is one of RFC 6749 §5.2's
/// codes; `error_description` and `error_uri` never do.
@Suite("auth-refresh: the token endpoint's error field", .timeLimit(.minutes(10)))
struct AuthErrorCodeTests {
    typealias Plugin = AuthRefreshPluginTests

    /// 400 with the refresh token echoed in `error`, then in `error_description` and `error_uri`.
    @Test(arguments: [
        #"{"error": "\#(Plugin.oldRefresh)"}"#,
        #"{"error": "invalid_request", "error_description": "bad token \#(Plugin.oldRefresh)"}"#,
        #"{"error": "invalid_scope", "error_uri": "https://idp.example/e?t=\#(Plugin.oldRefresh)"}"#,
        #"{"error": "invalid_request \#(Plugin.oldRefresh)"}"#,
    ])
    func anEchoedRefreshTokenIsNeverCopied(body: String) async throws {
        try await AuthTestHarness.with { h in
            try Plugin.writeSession(h, expiresIn: -600)
            h.server.enqueue(.json(400, body))
            let failure = try #require(await AuthTestHarness.stepFailure { try await Plugin.run(h, Plugin.options(h)) })
            #expect(failure.code == AuthRefreshPlugin.rejectedCode)
            #expect(!failure.retryable)
            #expect(failure.message.contains("400"))
            h.expectNoLeak(of: Plugin.secrets, failure: failure)
        }
    }

    @Test func anUnknownErrorBecomesAFixedText() async throws {
        try await AuthTestHarness.with { h in
            try Plugin.writeSession(h, expiresIn: -600)
            h.server.enqueue(.json(400, #"{"error": "\#(Plugin.oldRefresh)"}"#))
            let failure = try #require(await AuthTestHarness.stepFailure { try await Plugin.run(h, Plugin.options(h)) })
            #expect(failure.message.hasSuffix("answered 400 (unrecognized error)"))
        }
    }

    @Test(arguments: [
        "invalid_request", "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
    ])
    func rfc6749CodesPassThrough(code: String) async throws {
        try await AuthTestHarness.with { h in
            try Plugin.writeSession(h, expiresIn: -600)
            h.server.enqueue(.json(400, #"{"error": "\#(code)", "error_description": "DESCRIPTION-TEXT"}"#))
            let failure = try #require(await AuthTestHarness.stepFailure { try await Plugin.run(h, Plugin.options(h)) })
            #expect(failure.message.hasSuffix("answered 400 (\(code))"))
            #expect(!failure.message.contains("DESCRIPTION-TEXT"))
            #expect(!h.log.allText.contains("DESCRIPTION-TEXT"))
        }
    }
}
