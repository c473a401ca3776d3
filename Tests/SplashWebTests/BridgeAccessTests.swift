import SplashCore
import SplashProtocol
import SplashWeb
import Testing

/// Who may talk to the bridge and what a page may send: the rules, without a socket.
@Suite struct BridgeAccessTests {
    let access = BridgeAccess(host: "127.0.0.1", port: 8177, token: "0123456789abcdef0123456789abcdef", appStep: "first-frame")
    let origin = "http://127.0.0.1:8177"
    let host = "127.0.0.1:8177"

    @Test func hostsAreTheBridgesOwn() {
        #expect(access.acceptsHost("127.0.0.1:8177") && access.acceptsHost("localhost:8177") && access.acceptsHost("[::1]:8177"))
        #expect(!access.acceptsHost("evil.example:8177"), "DNS rebinding")
        #expect(!access.acceptsHost("127.0.0.1:9999") && !access.acceptsHost(nil))
    }

    @Test func grants() {
        let token = "token=0123456789abcdef0123456789abcdef"
        #expect(access.grant(origin: origin, host: host, query: token) == .control)
        #expect(access.grant(origin: "http://localhost:8177", host: "localhost:8177", query: token) == .control)
        #expect(access.grant(origin: origin, host: host, query: nil) == .viewer, "no token: a read-only viewer")
        #expect(access.grant(origin: nil, host: host, query: token) == .viewer, "a token counts only from the page")
        #expect(access.grant(origin: origin, host: host, query: "token=0123456789abcdef0123456789abcdee") == .refused("wrong token"))
        #expect(access.grant(origin: "http://evil.example", host: host, query: token) == .refused("foreign origin"))
        #expect(access.grant(origin: "null", host: host, query: nil) == .refused("foreign origin"))
        #expect(access.grant(origin: origin, host: "evil.example:8177", query: token) == .refused("unknown host"))
    }

    func check(_ line: String, _ grant: BridgeAccess.Grant) -> Result<Request, ProtocolError> {
        access.check(Array(line.utf8), grant: grant)
    }

    @Test func rendererCommandsNeedControl() throws {
        for line in [#"{"cmd":"dismissed","id":1}"#, #"{"cmd":"retry"}"#, #"{"cmd":"continue-offline"}"#, #"{"cmd":"complete","step":"first-frame"}"#] {
            #expect(throws: Never.self) { try check(line, .control).get() }
            guard case .failure(let error) = check(line, .viewer) else {
                Issue.record("\(line) passed without the token")
                continue
            }
            #expect(error.code == .permissionDenied)
        }
        #expect(throws: Never.self) { try check(#"{"cmd":"ping"}"#, .viewer).get() }
    }

    @Test func onlyRendererCommandsPass() {
        for line in [
            #"{"cmd":"relaunch","id":7}"#, #"{"cmd":"sign-out"}"#, #"{"cmd":"action","name":"x"}"#,
            #"{"cmd":"open","url":"kiosk://x"}"#, #"{"cmd":"complete","step":"other"}"#, #"{"cmd":"subscribe"}"#,
            #"{"cmd":"state"}"#, #"{"cmd":"blame"}"#, #"{"cmd":"sign-in","session":{"access_token":"x"}}"#,
        ] {
            guard case .failure(let error) = check(line, .control) else {
                Issue.record("\(line) would reach the daemon")
                continue
            }
            #expect(error.code == .permissionDenied, "\(line)")
        }
        guard case .failure(let error) = check(#"{"cmd":"relaunch","id":7}"#, .control) else {
            Issue.record("relaunch would reach the daemon")
            return
        }
        #expect(error.id == .number(7), "the page's id is echoed")
        guard case .failure(let bad) = check("not json", .control) else {
            Issue.record("a line that is not JSON would reach the daemon")
            return
        }
        #expect(bad.code == .badRequest)
    }
}
