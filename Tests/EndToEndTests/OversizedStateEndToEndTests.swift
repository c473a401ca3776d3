import SplashClient
import SplashCore
import SplashProtocol
import TestSupport
import Testing

/// The probe's configs that passed `splashd check` and made states over the protocol's 64 KiB
/// bound, which ended every client (`splashctl watch` exited 76, and the renderers use the same
/// client): the daemon now cuts what it sends.
@MainActor @Suite struct OversizedStateEndToEndTests {
    @Test func aPluginsLongErrorOutputReachesClientsCut() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("noisy", """
            printf 'error output: ' >&2
            head -c 34000 /dev/zero | tr '\\0' x >&2
            exit 1
            """)
        let daemon = try DaemonProcess(
            config: """
                [splash]
                min_display = "0ms"

                [[step]]
                id = "noisy"
                plugin = "noisy"
                label = "Making noise"
                """,
            pluginDirectories: [plugins.directory]
        )
        let renderer = try daemon.connect()
        let error = try renderer.follow(timeout: .seconds(20)) { state, _ in state.phase != .error }
        #expect(error.error?.detail?.hasSuffix("…") == true)
        #expect(error.error?.detail?.contains("error output: xxx") == true)
        #expect(error.steps[0].reason?.hasSuffix("…") == true)
        // The operators' client reads it too.
        let result = try ProcessRunner.run(Binaries.splashctl, ["--socket", daemon.socketPath, "status", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.utf8.count < SocketDefaults.maxLineBytes)
    }
}
