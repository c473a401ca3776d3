import SplashProtocol
import Testing
import TestSupport

/// The renderers' command lines through the real binaries: they read them with their own
/// `CommandSpec` (SplashCommandLine), not swift-argument-parser, and answer as it did. On the main
/// actor, as every end-to-end suite (MainActorSuitesTests).
@MainActor @Suite struct RendererCommandLineTests {
    nonisolated static let kms = "\(Binaries.directory)/splashd-kms"
    nonisolated static let web = "\(Binaries.directory)/splashd-web"

    /// A refused value says why, with the usage, and exits 64 (EX_USAGE), before the renderer
    /// opens anything.
    @Test(arguments: [
        (kms, ["--rotate", "7"], "Error: --rotate takes 0, 90, 180 or 270\nUsage: splashd-kms run [--socket <socket>]"),
        (kms, ["run", "--touch", "no-equals-sign"], "Error: --touch takes DEVICE=OUTPUT"),
        (kms, ["--rotate", "ninety"], "Error: The value 'ninety' is invalid for '--rotate <rotate>'"),
        (kms, ["check"], "Error: Missing expected argument '--theme <theme>'\nUsage: splashd-kms check --theme <theme> [--files]"),
        (kms, ["screenshot"], "Error: Missing expected argument '<file.png>'"),
        (kms, ["--bogus"], "Error: Unknown option '--bogus'"),
        (web, ["--listen", "nowhere"], "Error: --listen takes HOST:PORT"),
        (web, ["check", "--theme"], "Error: Missing value for '--theme <theme>'"),
    ])
    func aBadCommandLineIsAUsageError(binary: String, arguments: [String], message: String) throws {
        let result = try ProcessRunner.run(binary, arguments, environment: ["SPLASHD_SOCKET": "/nonexistent/splashd.sock"])
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func helpAndVersionAnswerOnStdout() throws {
        let help = try ProcessRunner.run(Self.kms, ["help", "screenshot"])
        #expect(help.status == 0 && help.stdout.contains("\nUSAGE: splashd-kms screenshot <file.png> [--output <output>] [--device <device>]\n"), "\(help.stdout)")
        let runHelp = try ProcessRunner.run(Self.kms, ["run", "--help"])
        #expect(runHelp.stdout.contains("  --device <device>       The DRM device. (default: /dev/dri/card0)\n"), "\(runHelp.stdout)")
        #expect(!runHelp.stdout.contains("firmware-logo"), "a hidden option stays out of the help")
        let top = try ProcessRunner.run(Self.web, ["--help"])
        #expect(top.status == 0 && top.stdout.contains("  run (default)           Serve the page until SIGTERM or SIGINT (the default).\n"), "\(top.stdout)")
        let version = try ProcessRunner.run(Self.web, ["--version"])
        #expect(version.status == 0 && version.stdout == "\(splashdVersion)\n")
    }

    /// The logo's child is a hidden subcommand the renderer runs on itself: still parsed (an
    /// empty stdin is no logo, 65), not listed.
    @Test func theHiddenSubcommandStillRuns() throws {
        let child = try ProcessRunner.run(Self.kms, ["render-logo", "--type", "svg", "--side", "64"])
        #expect(child.status == 65 && child.stderr.contains("no logo on stdin"), "\(child.status) \(child.stderr)")
        let help = try ProcessRunner.run(Self.kms, ["--help"])
        #expect(!help.stdout.contains("render-logo"))
    }

    /// What the renderers were split out of the daemon to leave behind: neither links
    /// FoundationEssentials (nor Foundation) any more. A module that imports it, or a dependency
    /// that brings it, turns this red before the package budgets do.
    @Test func theRenderersLinkNoFoundation() throws {
        let readelf = try #require(Tool.path("readelf"), "readelf is not installed (Debian's binutils)")
        for binary in [Self.kms, Self.web] {
            let dynamic = try ProcessRunner.run(readelf, ["-d", "-W", binary])
            #expect(dynamic.status == 0, "\(dynamic.stderr)")
            let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            #expect(needed.contains { $0.contains("libswiftCore") }, "a debug build links the Swift runtime dynamically: \(needed)")
            #expect(!needed.contains { $0.contains("Foundation") }, "\(binary): \(needed.filter { $0.contains("Foundation") })")
        }
    }
}
