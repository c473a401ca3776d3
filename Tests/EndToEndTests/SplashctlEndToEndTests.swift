import Foundation
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// The `splashctl` binary against the real daemon: what operators and scripts see and get back.
@MainActor @Suite struct SplashctlEndToEndTests {
    /// The launch is held by first-frame, in `loading` however slow the machine.
    static let config = TestConfig.instantSplash + """
        timeout = "10m"

        [[step]]
        id = "first-frame"
        plugin = "signal"
        label = "Starting the app"
        """

    func splashctl(_ daemon: DaemonProcess, _ arguments: String...) throws -> CommandResult {
        try ProcessRunner.run(Binaries.splashctl, ["--socket", daemon.socketPath] + arguments)
    }

    @Test func statusWaitWatchAndControlCommands() throws {
        let daemon = try DaemonProcess(config: Self.config)
        var info = stat()
        stat(daemon.socketPath, &info)
        #expect(info.st_mode & 0o777 == 0o660, "the socket file gets the configured mode")

        let status = try splashctl(daemon, "status")
        #expect(status.status == 0)
        #expect(status.stdout.hasPrefix("phase: loading"))
        #expect(status.stdout.contains("first-frame"))
        #expect(status.stdout.contains("Starting the app"))
        let json = try splashctl(daemon, "status", "--json")
        #expect(ServerMessage.decode(Array(json.stdout.utf8.dropLast())) != nil)

        // wait times out while the splash is held (75, EX_TEMPFAIL) ...
        let early = try splashctl(daemon, "wait", "finished", "--timeout", "200ms")
        #expect(early.status == 75)
        // ... a refused command says why and exits 1 ...
        let refused = try splashctl(daemon, "dismissed")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("dismissed is only possible in phase dismissing"))
        let unknown = try splashctl(daemon, "complete", "nope")
        #expect(unknown.status == 1)
        // ... and a control command succeeds silently.
        let complete = try splashctl(daemon, "complete", "first-frame")
        #expect(complete.status == 0 && complete.stdout.isEmpty)
        #expect(try splashctl(daemon, "wait", "finished", "--timeout", "10s").status == 0)
        // watch, piped: one line per change, exits 0 at finished (at once here).
        let watch = try splashctl(daemon, "watch")
        #expect(watch.status == 0)
        #expect(watch.stdout.hasPrefix("finished  100%"))
        #expect(watch.stdout.contains("-> home"))
        let ping = try splashctl(daemon, "ping")
        #expect(ping.stdout.hasPrefix("pong (splashd \(splashdVersion))"))
        let graph = try splashctl(daemon, "graph")
        #expect(graph.stdout.hasPrefix("digraph"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") {
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            let dotFile = try dir.write("graph.dot", graph.stdout)
            let rendered = try ProcessRunner.run("/usr/bin/dot", ["-Tsvg", dotFile])
            #expect(rendered.status == 0, "graphviz parses the DOT: \(rendered.stderr)")
        } else {
            print("graphviz not installed: DOT not parsed")
        }
    }

    @Test func aMissingDaemonIsExit69WithAClearMessage() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let result = try ProcessRunner.run(Binaries.splashctl, ["--socket", dir.file("none.sock"), "status"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("splashd is not running"))
    }

    /// The package's splashctl is splashd under another name (docs/packaging.md): the help is
    /// splashctl's, and a name that only ends in "splashctl" is the daemon's.
    @Test func splashdCalledSplashctlIsSplashctl() throws {
        let help = try ProcessRunner.run(Binaries.splashctl, ["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: Inspect and control the splash screen daemon (splashd)."), "\(help.stdout)")
        #expect(help.stdout.contains("USAGE: splashctl"))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let other = dir.file("old-splashctl")
        try FileManager.default.createSymbolicLink(atPath: other, withDestinationPath: Binaries.splashd)
        let daemonHelp = try ProcessRunner.run(other, ["--help"])
        #expect(daemonHelp.stdout.hasPrefix("OVERVIEW: The splash-screen daemon"), "\(daemonHelp.stdout)")
    }

    /// libsystemd is loaded only by `logs` (and [app]): with it unloadable (a file that is not a
    /// library bound over it, in a mount namespace of the command's own), the other commands
    /// work and `logs` says what is missing and exits 74.
    @Test(.enabled(if: getuid() == 0 && Tool.has("unshare") && Tool.has("ldconfig"), "needs root, unshare and ldconfig"))
    func withoutLibsystemdOnlyLogsFails() throws {
        let daemon = try DaemonProcess(config: Self.config)
        let script = """
            lib=$(ldconfig -p | sed -n 's/^[[:space:]]*libsystemd\\.so\\.0 .*=> //p' | head -n 1)
            [ -n "$lib" ] || { echo "no libsystemd.so.0 in ldconfig's cache" >&2; exit 100; }
            mount --bind /dev/null "$(realpath "$lib")" || exit 101
            "$0" --socket "$1" status --json >/dev/null || exit 102
            "$0" logs last
            """
        let result = try ProcessRunner.run(
            Tool.path("unshare")!, ["--mount", "--propagation", "private", "sh", "-c", script, Binaries.splashctl, daemon.socketPath]
        )
        #expect(result.status == 74, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.hasPrefix("splashctl: cannot read the journal without libsystemd: cannot load libsystemd.so.0: "), "\(result.stderr)")
    }
}
