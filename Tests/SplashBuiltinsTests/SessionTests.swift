import Foundation
import SplashBuiltins
import SplashCore
import SplashJSON
import Testing
import TestSupport

@Suite("Session and SessionStore")
struct SessionTests {
    static let json: [String: JSONValue] = [
        "access_token": "acc-SECRET", "refresh_token": "ref-SECRET", "expires_at": 1_795_337_147, "user": "Ada",
    ]

    @Test func readsTheSessionObject() throws {
        let session = try Session(json: Self.json)
        #expect(session == Session(accessToken: "acc-SECRET", refreshToken: "ref-SECRET", expiresAt: 1_795_337_147, user: "Ada"))
        var anonymous = Self.json
        anonymous["user"] = nil
        #expect(try Session(json: anonymous).user == nil)
        anonymous["user"] = .null
        #expect(try Session(json: anonymous).user == nil)
    }

    @Test(arguments: [
        ("access_token", JSONValue?.none, #"missing "access_token""#),
        ("refresh_token", .some(.number(3)), #""refresh_token" must be a non-empty string"#),
        ("access_token", .some(.string("")), #""access_token" must be a non-empty string"#),
        ("expires_at", .some(.number(1.5)), #""expires_at" must be a whole number of Unix seconds"#),
        ("expires_at", .some(.string("1795337147")), #""expires_at" must be a whole number of Unix seconds"#),
        ("expires_at", JSONValue?.none, #"missing "expires_at""#),
        ("user", .some(.bool(true)), #""user" must be a string"#),
    ])
    func rejectsBadFields(name: String, value: JSONValue?, reason: String) {
        var json = Self.json
        json[name] = value
        #expect(throws: Session.FormatError(reason: reason)) { try Session(json: json) }
    }

    @Test func printingNeverShowsTokens() throws {
        let session = try Session(json: Self.json)
        var dumped = ""
        dump(session, to: &dumped)
        for text in [session.description, String(reflecting: session), "\(session)", dumped] {
            #expect(!text.contains("SECRET"))
            #expect(text.contains("Ada"))
        }
    }

    @Test func storeRoundTripsWithMode0600AndRemoves() throws {
        let directory = try TemporaryDirectory(prefix: "splash-session")
        defer { directory.remove() }
        let store = SessionStore(path: directory.file("session.json"))
        #expect(try store.read() == nil)

        let session = try Session(json: Self.json)
        try store.write(session)
        #expect(try store.read() == session)
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(
            directory.read("session.json")
                == #"{"access_token":"acc-SECRET","refresh_token":"ref-SECRET","expires_at":1795337147,"user":"Ada"}"# + "\n"
        )

        try store.remove()
        #expect(!directory.exists("session.json"))
        try store.remove()  // nothing to remove is fine
    }

    @Test func malformedFileErrorsNeverQuoteTheContent() throws {
        let directory = try TemporaryDirectory(prefix: "splash-session")
        defer { directory.remove() }
        let store = SessionStore(path: directory.file("session.json"))
        for content in [#"{"access_token": "acc-SECRET""#, #"{"access_token": "acc-SECRET"}"#, #""acc-SECRET""#] {
            try directory.write("session.json", content)
            do {
                _ = try store.read()
                Issue.record("expected an error for \(content)")
            } catch {
                guard case .malformed(let path, _) = error else {
                    Issue.record("expected .malformed, got \(error)")
                    continue
                }
                #expect(path == store.path)
                #expect(!"\(error)".contains("SECRET"))
            }
        }
    }
}
