import Glibc
import SplashClient
import SplashCore
import SplashProtocol
import Testing

/// Connecting when there is no daemon, or no right to talk to it.
@Suite struct ConnectFailureTests {
    @Test func noSocketFileMeansNotRunning() throws {
        let server = try ScriptedServer(listen: false)
        let path = server.directory + "/absent.sock"
        #expect(throws: ClientError.daemonNotRunning(path: path, staleSocket: false)) { _ = try SplashConnection(path: path) }
        let error = ClientError.daemonNotRunning(path: SocketDefaults.path)
        #expect(error.description == "splashd is not running (no socket at /run/splashd/splashd.sock)")
        #expect(error.exitCode == 69)
    }

    @Test func aSocketNobodyListensOnMeansNotRunning() throws {
        let server = try ScriptedServer(listen: false)  // bound, so the file exists, but not listening
        #expect(throws: ClientError.daemonNotRunning(path: server.path, staleSocket: true)) {
            _ = try SplashConnection(path: server.path)
        }
        #expect(ClientError.daemonNotRunning(path: "/s", staleSocket: true).description == "splashd is not running (nothing listens on /s)")
    }

    @Test func aPathTooLongForSockaddrIsAnIOError() {
        let path = "/tmp/" + String(repeating: "a", count: 200)
        #expect(throws: ClientError.io("invalid socket path \"\(path)\" (at most 107 bytes)")) {
            _ = try SplashConnection(path: path)
        }
    }

    @Test func aSocketWithoutPermissionIsPermissionDenied() throws {
        let server = try ScriptedServer()
        #expect(chmod(server.directory, 0o755) == 0)
        #expect(chmod(server.path, 0) == 0)
        let expected = ClientError.permissionDenied(path: server.path)
        #expect(expected.description == "permission denied on \(server.path): you need to be root or in the socket's group")
        #expect(expected.exitCode == 77)
        if geteuid() != 0 {
            #expect(throws: expected) { _ = try SplashConnection(path: server.path, timeout: .seconds(1)) }
            return
        }
        // Root ignores mode bits: try as `nobody` in a forked child.
        let outcome = try PrivilegeDrop.connectAsNobody(path: server.path)
        if case .unavailable(let reason) = outcome {
            print("skipped the unprivileged half: \(reason)")
            return
        }
        #expect(outcome == .permissionDenied, "as nobody: \(outcome)")
    }

    @Test func exitCodesFollowSysexits() {
        #expect(ClientError.timedOut.exitCode == 75)
        #expect(ClientError.connectionClosed.exitCode == 69)
        #expect(ClientError.invalidMessage("x").exitCode == 76)
        #expect(ClientError.io("x").exitCode == 74)
        #expect(ClientError.rejected(ProtocolError(code: .invalidTransition, message: "m")).exitCode == 1)
        #expect(ClientError.rejected(ProtocolError(code: .permissionDenied, message: "m")).exitCode == 77)
        #expect(ClientError.rejected(ProtocolError(code: .invalidTransition, message: "retry is only possible in phase error")).description
            == "retry is only possible in phase error")
    }
}
