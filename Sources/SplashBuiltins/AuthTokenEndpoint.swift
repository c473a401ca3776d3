import SplashCore
import SplashJSON

/// The OAuth 2.0 token endpoint, asked for a refresh-token grant (RFC 6749 §6).
///
/// Sends `grant_type=refresh_token&refresh_token=…&client_id=…` form-encoded and sorts the reply
/// into what `auth-refresh` does next. No outcome carries the old refresh token, and reasons never
/// quote a reply body.
struct AuthTokenEndpoint {
    /// New tokens from a successful grant.
    struct Grant: Sendable, Equatable {
        var accessToken: String
        /// Absent when the server keeps the old refresh token valid.
        var refreshToken: String?
        /// Seconds the new access token is valid for, if the server said.
        var expiresIn: Int64?
    }

    /// What the endpoint answered.
    enum Outcome: Sendable, Equatable {
        /// 200 with new tokens.
        case granted(Grant)
        /// The refresh token is no longer valid (`invalid_grant`): the user must sign in again.
        case invalidGrant
        /// No usable answer: connect failure, timeout, 5xx, 408/429, or a malformed reply.
        case unavailable(String)
        /// Any other 4xx: a retry cannot help (e.g. `invalid_client`).
        case rejected(String)
    }

    /// The largest token reply read.
    static let replyLimit = 64 * 1024

    let url: String
    let clientID: String?
    let fetch: HTTPFetch

    /// Exchanges `refreshToken` for new tokens; throws only `CancellationError`.
    func refresh(_ refreshToken: String) async throws -> Outcome {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let clientID { form.append(("client_id", clientID)) }
        let reply: HTTPFetch.Reply
        do {
            reply = try await fetch.perform(
                .post,
                url: url,
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Accept", "application/json"),
                ],
                body: Array(Self.formEncode(form).utf8)
            )
        } catch let failure as HTTPFetch.Failure {
            return .unavailable("token endpoint \(url): \(failure)")
        }
        return Self.outcome(of: reply, url: url)
    }

    /// Sorts a reply into an outcome.
    static func outcome(of reply: HTTPFetch.Reply, url: String) -> Outcome {
        let object = try? JSONReader.value(of: reply.body).objectValue
        switch reply.status {
        case 200:
            guard let object, let access = object["access_token"]?.stringValue, !access.isEmpty else {
                return .unavailable("token endpoint \(url) answered 200 without an access_token")
            }
            let refresh = object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let expiresIn = object["expires_in"]?.numberValue.flatMap { Int64(exactly: $0.rounded(.down)) }
            return .granted(Grant(accessToken: access, refreshToken: refresh, expiresIn: expiresIn.map { max(0, $0) }))
        case 400..<500:
            let code = object?["error"]?.stringValue
            if code == "invalid_grant" { return .invalidGrant }
            let what = "token endpoint \(url) answered \(reply.status)" + (code.map { " (\(knownErrorCode($0)))" } ?? "")
            return reply.status == 408 || reply.status == 429 ? .unavailable(what) : .rejected(what)
        default:
            return .unavailable("token endpoint \(url) answered \(reply.status)")
        }
    }

    /// The error codes of RFC 6749 §5.2, the only `error` values ever passed on.
    static let errorCodes: Set<String> = [
        "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type",
        "invalid_scope",
    ]

    /// What a reason says of an `error` field: the code when RFC 6749 §5.2 defines it, else a fixed
    /// text. A server may put anything there — one that echoed the refresh token would otherwise
    /// leak it into logs, the step's reason and every subscriber's state. `error_description` and
    /// `error_uri` are never read.
    static func knownErrorCode(_ text: String) -> String {
        errorCodes.contains(text) ? text : "unrecognized error"
    }

    /// `application/x-www-form-urlencoded` of `pairs`: every byte but `A-Z a-z 0-9 - . _ ~` as `%XX`.
    static func formEncode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
