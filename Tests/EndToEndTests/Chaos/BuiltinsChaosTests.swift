import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// Hostile files and servers against the built-in plugins of the real daemon: a spool that is a
/// symlink, a token endpoint that echoes the refresh token, a config cache that cannot be written.
///
/// The time limit counts the time a test waits for the main actor, where the end-to-end tests run
/// one at a time (8 minutes of them under ThreadSanitizer on a busy machine): a guard against a
/// hang, not one an honest run reaches.
@MainActor @Suite("chaos: built-in plugins", .timeLimit(.minutes(30)))
struct BuiltinsChaosTests {
    /// Follows the states until `phase`, keeping every line received.
    static func follow(_ connection: SplashConnection, until phase: Phase, transcript: inout String) throws -> StateMessage {
        var lines = ""
        let state = try connection.follow(timeout: .seconds(30)) { state, line in
            lines += String(decoding: line, as: UTF8.self) + "\n"
            return state.phase != phase
        }
        transcript += lines
        return state
    }

    static let splash = TestConfig.instantSplash + """
        """

    @Test func aSpoolSymlinkNeitherDeletesNorLeaksTheFilesBehindIt() throws {
        let state = try TemporaryDirectory()
        let etc = try TemporaryDirectory(prefix: "splash-fake-etc")
        defer {
            state.remove()
            etc.remove()
        }
        let secret = "PermitRootLogin yes # SSHD-SECRET-LINE\n"
        try etc.write("sshd_config", secret)
        #expect(symlink(etc.path, state.file("spool")) == 0)
        let config = Self.splash + """
            [[step]]
            id = "quick"
            plugin = "quick-action"
            [step.options]
            scheme = "kiosk"
            routes = ["orders/*"]
            """
        let daemon = try DaemonProcess(config: config, stateDirectory: state.path)
        var transcript = ""
        let finished = try Self.follow(try daemon.connect(), until: .finished, transcript: &transcript)
        #expect(finished.steps.first?.status == .succeeded)
        daemon.stop()
        #expect(etc.read("sshd_config") == secret)
        #expect(!daemon.log.contains("SSHD-SECRET-LINE"))
        #expect(!transcript.contains("SSHD-SECRET-LINE"))
        #expect(daemon.logLines(containing: "symlink").count == 1)
    }

    @Test func aTokenEndpointEchoingTheRefreshTokenLeaksItNowhere() async throws {
        let refresh = "RT-ECHOED-SECRET-77"
        let server = try await TestHTTPServer.start()
        server.enqueue(.json(400, #"{"error":"\#(refresh)","error_description":"\#(refresh)"}"#))
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try BuiltinsEndToEndTests.writeSession(state.path, expiresIn: -10, refresh: refresh)
        let daemon = try DaemonProcess(config: BuiltinsEndToEndTests.authConfig(server), stateDirectory: state.path)
        var transcript = ""
        let renderer = try daemon.connect()
        let failed = try Self.follow(renderer, until: .error, transcript: &transcript)
        #expect(failed.steps.first?.status == .failed)
        #expect(failed.steps.first?.reason?.contains("unrecognized error") == true)
        guard case .state(let current) = try renderer.request(.state) else {
            Issue.record("no state")
            return
        }
        transcript += "\(current)"
        daemon.stop()
        try await server.stop()
        #expect(server.requests.first?.bodyText.contains(refresh) == true, "the token was sent")
        #expect(!daemon.log.contains(refresh), "the token reached the log")
        #expect(!transcript.contains(refresh), "the token reached a state")
    }

    @Test func aCacheThatCannotBeWrittenIsNotANetworkFailure() async throws {
        let server = try await TestHTTPServer.start()
        server.enqueue(.json(200, #"{"theme":"dark"}"#))
        let state = try TemporaryDirectory()
        defer { state.remove() }
        guard let readOnly = ReadOnlyDirectory(state.file("cache")) else {
            print("skipped: cannot make a read-only directory here")
            return
        }
        defer { readOnly.restore() }
        let cache = state.file("cache/config.json")
        let config = BuiltinsEndToEndTests.configFetchConfig(server) + "\ncache = \"\(cache)\"\n"
        let daemon = try DaemonProcess(config: config, stateDirectory: state.path)
        var transcript = ""
        let failed = try Self.follow(try daemon.connect(), until: .error, transcript: &transcript)
        daemon.stop()
        try await server.stop()
        #expect(failed.error?.code != .network)
        #expect(failed.error?.message != "Unable to connect")
        let reason = try #require(failed.steps.first?.reason)
        #expect(reason.contains(cache), "\(reason)")
        #expect(reason.contains(geteuid() == 0 ? "EPERM" : "EACCES"), "\(reason)")
        #expect(failed.error?.detail?.contains("Unable to connect") == false)
    }
}
