import Foundation
import SplashClient
import SplashCore
import SplashJSON
import SplashProtocol
import Testing
import TestSupport

/// The built-in plugins through the real daemon, against a real HTTP server: every outcome of
/// design §7, and tokens that never reach a log or a socket.
@MainActor @Suite struct BuiltinsEndToEndTests {
    static let secrets = ["AT-old-secret-1", "RT-old-secret-2", "AT-new-secret-3", "RT-new-secret-4", "AT-signin-5", "RT-signin-6"]

    /// A renderer that keeps every line it receives.
    final class Renderer {
        let connection: SplashConnection
        var transcript = ""
        init(_ daemon: DaemonProcess) throws { connection = try daemon.connect() }

        @discardableResult
        func until(_ phase: Phase, timeout: Duration = .seconds(30)) throws -> StateMessage {
            try until(timeout: timeout) { $0.phase == phase }
        }

        /// The first state for which `done` holds.
        @discardableResult
        func until(timeout: Duration = .seconds(30), _ done: @escaping (StateMessage) -> Bool) throws -> StateMessage {
            try connection.follow(timeout: timeout) { state, line in
                self.transcript += String(decoding: line, as: UTF8.self) + "\n"
                return !done(state)
            }
        }

        /// The next message, when it is an `event`: its name and fields.
        func nextEvent(timeout: Duration = .seconds(10)) throws -> (name: String, fields: [String: JSONValue])? {
            guard case .event(let name, let fields) = try connection.receive(timeout: timeout) else { return nil }
            return (name, fields)
        }
    }

    static func isOK(_ message: ServerMessage) -> Bool {
        if case .ok = message { return true }
        return false
    }

    static func authConfig(_ server: TestHTTPServer, extra: String = "") -> String {
        TestConfig.instantSplash + """
        [[step]]
        id = "auth"
        plugin = "auth-refresh"
        label = "Signing in"
        [step.options]
        token_url = "\(server.url("/token"))"
        client_id = "kiosk"
        request_timeout = "60s"
        \(extra)
        """
    }

    static func writeSession(_ daemonState: String, expiresIn seconds: Int64, access: String = "AT-old-secret-1", refresh: String = "RT-old-secret-2") throws {
        let expires = Int64(Date().timeIntervalSince1970) + seconds
        let text = #"{"access_token":"\#(access)","refresh_token":"\#(refresh)","expires_at":\#(expires),"user":"Ada"}"#
        let path = "\(daemonState)/session.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
    }

    static func expectNoSecrets(_ texts: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "a token leaked", sourceLocation: sourceLocation) }
        }
    }

    @Test func aFreshDeviceOnboardsThenAReturningOneWithoutSessionLogsIn() throws {
        let daemon = try DaemonProcess(config: nil)
        let renderer = try Renderer(daemon)
        let first = try renderer.until(.finished)
        #expect(first.destination?.screen == .onboarding)
        #expect(first.steps.map(\.id) == ["auth-refresh", "config-fetch", "launch-counter", "quick-action"])
        #expect(first.steps.allSatisfy { $0.status == .succeeded })
        #expect(Self.isOK(try renderer.connection.request(.relaunch)))
        let second = try renderer.until(.finished)
        #expect(second.launch != first.launch)
        #expect(second.destination?.screen == .login)
    }

    @Test func anExpiredTokenIsRefreshedStoredAndNeverShown() async throws {
        let server = try await TestHTTPServer.start()
        server.enqueue(.json(200, #"{"access_token":"AT-new-secret-3","refresh_token":"RT-new-secret-4","expires_in":3600,"token_type":"Bearer"}"#))
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try Self.writeSession(state.path, expiresIn: -10)
        let daemon = try DaemonProcess(config: Self.authConfig(server), stateDirectory: state.path)
        let renderer = try Renderer(daemon)
        let finished = try renderer.until(.finished)
        #expect(finished.destination?.screen == .home)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
        let form = Set(request.bodyText.split(separator: "&").map(String.init))
        #expect(form == ["grant_type=refresh_token", "refresh_token=RT-old-secret-2", "client_id=kiosk"])
        let stored = try #require(state.read("session.json"))
        #expect(stored.contains("AT-new-secret-3") && stored.contains("RT-new-secret-4"))
        var info = stat()
        stat(state.file("session.json"), &info)
        #expect(info.st_mode & 0o777 == 0o600)

        // The app signs in with a new session (stored, never echoed), then out.
        let app = try daemon.connect()
        let session: [String: JSONValue] = [
            "access_token": "AT-signin-5", "refresh_token": "RT-signin-6", "expires_at": 4_102_444_800, "user": "Grace",
        ]
        let reply = try app.request(.signIn(session: session))
        #expect(reply == .ok(id: 1))
        #expect(state.read("session.json")?.contains("AT-signin-5") == true)
        #expect(try app.request(.signOut) == .ok(id: 2))
        #expect(!state.exists("session.json"))
        #expect(Self.isOK(try app.request(.relaunch)))
        #expect(try renderer.until(.finished).destination?.screen == .login)
        daemon.stop()
        Self.expectNoSecrets(daemon.log, renderer.transcript)
    }

    @Test func aValidTokenGoesHomeWithoutARequest() async throws {
        let server = try await TestHTTPServer.start()
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try Self.writeSession(state.path, expiresIn: 3600)
        let daemon = try DaemonProcess(config: Self.authConfig(server), stateDirectory: state.path)
        let renderer = try Renderer(daemon)
        #expect(try renderer.until(.finished).destination?.screen == .home)
        #expect(server.requests.isEmpty)
        daemon.stop()
        Self.expectNoSecrets(daemon.log, renderer.transcript)
    }

    @Test func invalidGrantSignsOutAndRemovesTheSession() async throws {
        let server = try await TestHTTPServer.start()
        server.enqueue(.json(400, #"{"error":"invalid_grant","error_description":"RT-old-secret-2 revoked"}"#))
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try Self.writeSession(state.path, expiresIn: -10)
        try "1\n".write(toFile: state.file("launched"), atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(config: Self.authConfig(server), stateDirectory: state.path)
        let renderer = try Renderer(daemon)
        #expect(try renderer.until(.finished).destination?.screen == .login)
        #expect(!state.exists("session.json"))
        daemon.stop()
        Self.expectNoSecrets(daemon.log, renderer.transcript)
    }

    @Test func tokenEndpointDownWithAStillValidTokenGoesHomeOffline() async throws {
        let server = try await TestHTTPServer.start()
        try await server.stop()
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try Self.writeSession(state.path, expiresIn: 30)  // inside the 60 s skew: a refresh is due
        let daemon = try DaemonProcess(config: Self.authConfig(server), stateDirectory: state.path)
        let renderer = try Renderer(daemon)
        #expect(try renderer.until(.finished).destination?.screen == .home)
        #expect(daemon.log.contains("signed in, offline"))
        daemon.stop()
        Self.expectNoSecrets(daemon.log, renderer.transcript)
    }

    @Test func tokenEndpointDownWithAnExpiredTokenFailsThenRetrySucceeds() async throws {
        let server = try await TestHTTPServer.start()
        try await server.stop()
        let state = try TemporaryDirectory()
        defer { state.remove() }
        try Self.writeSession(state.path, expiresIn: -10)
        let daemon = try DaemonProcess(config: Self.authConfig(server), stateDirectory: state.path)
        let renderer = try Renderer(daemon)
        let error = try renderer.until(.error)
        #expect(error.error?.code == .network)
        #expect(error.error?.message == "Unable to connect")
        #expect(error.message == "Unable to connect")
        try await server.start()
        server.enqueue(.json(200, #"{"access_token":"AT-new-secret-3","expires_in":3600}"#))
        #expect(try daemon.connect().request(.retry) == .ok(id: 1))
        #expect(try renderer.until(.finished).destination?.screen == .home)
        daemon.stop()
        Self.expectNoSecrets(daemon.log, renderer.transcript)
    }

    static func configFetchConfig(_ server: TestHTTPServer, maxBytes: Int = 1 << 20) -> String {
        TestConfig.instantSplash + """
        [[step]]
        id = "config"
        plugin = "config-fetch"
        [step.options]
        url = "\(server.url("/config.json"))"
        request_timeout = "60s"
        max_bytes = \(maxBytes)
        """
    }

    @Test func configIsCachedRevalidatedAndUsedWhenTheServerIsDown() async throws {
        let server = try await TestHTTPServer.start()
        server.enqueue(.json(200, #"{"theme":"dark"}"#, headers: [("ETag", "\"v1\"")]))
        server.enqueue(.status(304))
        let daemon = try DaemonProcess(config: Self.configFetchConfig(server))
        let cache = daemon.directory.file("state/config.json")
        let renderer = try Renderer(daemon)
        try renderer.until(.finished)
        #expect(try String(contentsOfFile: cache, encoding: .utf8) == #"{"theme":"dark"}"#)
        #expect(Self.isOK(try renderer.connection.request(.relaunch)))
        try renderer.until(.finished)
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("If-None-Match") == "\"v1\"")
        #expect(daemon.log.contains("config not modified"))
        try await server.stop()
        #expect(Self.isOK(try renderer.connection.request(.relaunch)))
        let offline = try renderer.until(.finished)
        #expect(offline.steps[0].status == .succeeded)
        #expect(daemon.log.contains("using the cached config"))
        #expect(try String(contentsOfFile: cache, encoding: .utf8) == #"{"theme":"dark"}"#)
    }

    @Test func malformedAndOversizedRepliesAreRejectedAndTheCacheKept() async throws {
        let server = try await TestHTTPServer.start()
        server.enqueue(.json(200, #"{"theme":"dark"}"#, headers: [("ETag", "\"v1\"")]))
        server.enqueue(.json(200, "<html>not json</html>"))
        server.enqueue(.json(200, "{\"blob\":\"" + String(repeating: "x", count: 500) + "\"}"))
        let daemon = try DaemonProcess(config: Self.configFetchConfig(server, maxBytes: 100))
        let cache = daemon.directory.file("state/config.json")
        let renderer = try Renderer(daemon)
        try renderer.until(.finished)
        let good = try Data(contentsOf: URL(fileURLWithPath: cache))
        for _ in 2...3 {
            #expect(Self.isOK(try renderer.connection.request(.relaunch)))
            let state = try renderer.until(.finished)
            #expect(state.steps[0].status == .succeeded)
            #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == good)
        }
        #expect(server.requests.count == 3)
        #expect(daemon.log.contains("config not fetched"))
        #expect(daemon.log.components(separatedBy: "using the cached config").count - 1 == 2)
    }

    @Test func theReviewPromptComesOncePerVersionAcrossRestarts() throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        func config(version: String) -> String {
            TestConfig.instantSplash + """
            [[step]]
            id = "counter"
            plugin = "launch-counter"
            [step.options]
            min_launches = 2
            version = "\(version)"
            count_when = "always"
            """
        }
        var prompts: [Bool] = []
        do {
            let daemon = try DaemonProcess(config: config(version: "1.0"), stateDirectory: state.path)
            let renderer = try Renderer(daemon)
            for id in 1...3 {
                prompts.append(try renderer.until(.finished).destination?.reviewPrompt ?? false)
                if id < 3 { #expect(Self.isOK(try renderer.connection.request(.relaunch))) }
            }
            #expect(daemon.stop() == 0)
        }
        // A restart of the daemon does not prompt again for the same version; a new version does.
        for version in ["1.0", "1.1"] {
            let daemon = try DaemonProcess(config: config(version: version), stateDirectory: state.path)
            prompts.append(try Renderer(daemon).until(.finished).destination?.reviewPrompt ?? false)
            #expect(daemon.stop() == 0)
        }
        #expect(prompts == [false, true, false, false, true])
    }

    @Test func deepLinksAndQuickActionsAreRoutedAndUnknownOnesDropped() throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let spool = state.file("spool")
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        try "kiosk://orders/42\n".write(toFile: "\(spool)/link", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            config: TestConfig.instantSplash + """
                timeout = "10m"

                [[step]]
                id = "first-frame"
                plugin = "signal"

                [[step]]
                id = "quick"
                plugin = "quick-action"
                after = ["first-frame"]
                critical = false
                [step.options]
                scheme = "kiosk"
                routes = ["orders/*"]
                actions = { feedback = { route = "/help", sheet = "feedback-form" } }   # a leading / is ignored
                """,
            stateDirectory: state.path
        )
        let renderer = try Renderer(daemon)
        let app = try daemon.connect()
        // While loading: a quick action (newer than the spooled link, so it wins) and an unknown link.
        #expect(try app.request(.action(name: "feedback")) == .ok(id: 1))
        #expect(try app.request(.open(url: "kiosk://nowhere/else")) == .ok(id: 2))
        // The signal step holds the splash until the app says its first frame is up.
        let loading = try renderer.until(.loading)
        #expect(loading.steps[0].status == .running)
        let complete = try ProcessRunner.run(Binaries.splashctl, ["--socket", daemon.socketPath, "complete", "first-frame"])
        #expect(complete.status == 0, "\(complete.stderr)")
        let first = try renderer.until(.finished)
        #expect(first.destination == Destination(screen: .home, route: "help", sheet: "feedback-form"))
        #expect(daemon.log.contains("unknown quick action or deep link dropped: kiosk://nowhere/else"))
        #expect(!FileManager.default.fileExists(atPath: "\(spool)/link"))

        // A spooled deep link alone routes the next launch.
        try "kiosk://orders/7\n".write(toFile: "\(spool)/next", atomically: true, encoding: .utf8)
        #expect(Self.isOK(try app.request(.relaunch)))
        #expect(try app.request(.complete(step: "first-frame")) == .ok(id: 4))
        let second = try renderer.until(.finished)
        #expect(second.destination?.route == "orders/7", "\(String(describing: second.destination)) \(daemon.log)")

        // After finished: accepted ones are broadcast as events, unknown ones refused and logged.
        #expect(try app.request(.open(url: "kiosk://orders/9")) == .ok(id: 5))
        let event = try #require(try renderer.nextEvent())
        #expect(event.name == "open")
        #expect(event.fields["route"] == "orders/9")
        guard case .error(let refused) = try app.request(.action(name: "nope")) else {
            Issue.record("an unknown action was accepted")
            return
        }
        #expect(refused.code == .unknownAction)
    }

    /// Issue 25: a link that came after the quick-action step ran, while the launch still waited
    /// on a signal step, reached the app only as an event at `finished`: the app showed home,
    /// then jumped. Now it takes the destination; after `dismissing` it is too late, and an event.
    @Test func aDeepLinkWhileTheSplashIsUpLandsInTheDestination() throws {
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let daemon = try DaemonProcess(
            config: TestConfig.splash(exitAnimation: "60s") + """
                timeout = "10m"

                [[step]]
                id = "quick"
                plugin = "quick-action"
                critical = false
                [step.options]
                scheme = "shipthatapp"
                routes = ["pokedex", "orders/*"]

                [[step]]
                id = "first-frame"
                plugin = "signal"
                after = ["quick"]
                """,
            stateDirectory: state.path
        )
        let renderer = try Renderer(daemon)
        let app = try daemon.connect()
        // Sees the event that the finish of the launch sends (a follow skips events).
        let watcher = try daemon.connect()
        #expect(try watcher.request(.subscribe) == .ok(id: 1))
        // The quick-action step has run (nothing for it); the signal step holds the splash.
        let waiting = try renderer.until { $0.phase == .loading && $0.steps[0].status == .succeeded }
        #expect(waiting.destination == Destination(screen: .home), "the preview before the link")
        #expect(try app.request(.open(url: "shipthatapp://pokedex")) == .ok(id: 1))
        let routed = try renderer.until { $0.destination?.route == "pokedex" }
        #expect(routed.phase == .loading, "the destination changed under the splash")
        guard case .error(let refused) = try app.request(.open(url: "shipthatapp://nowhere")) else {
            Issue.record("a link with no route was accepted while loading")
            return
        }
        #expect(refused.code == .unknownAction)
        #expect(try app.request(.complete(step: "first-frame")) == .ok(id: 3))
        let dismissing = try renderer.until(.dismissing)
        #expect(dismissing.destination == Destination(screen: .home, route: "pokedex"))
        // Too late for the destination: an event once the launch has finished.
        #expect(try app.request(.open(url: "shipthatapp://orders/5")) == .ok(id: 4))
        #expect(try app.request(.dismissed) == .ok(id: 5))
        let finished = try renderer.until(.finished)
        #expect(finished.destination?.route == "pokedex")
        var event: (name: String, fields: [String: JSONValue])?
        while event == nil, let message = try? watcher.receive(timeout: .seconds(10)) {
            if case .event(let name, let fields) = message { event = (name, fields) }
        }
        #expect(event?.name == "open" && event?.fields["route"] == "orders/5", "too late for the destination: an event")
    }
}
