public import ArgumentParser
import Glibc
import SplashProtocol
import SplashSupport
import SplashCore

/// `splashctl`: inspect and control splashd over its socket.
///
/// The command line lives in this library so that one executable can be both programs: the
/// package installs `splashctl` as a link to `splashd`, which runs ``Splashctl`` when it is
/// called by that name (docs/packaging.md). The `splashctl` executable of a development build
/// runs it too.
public struct Splashctl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "splashctl",
        abstract: "Inspect and control the splash screen daemon (splashd).",
        discussion: """
            Exit status: 0 success; 1 the daemon refused the command (logs: the launch is not in the \
            journal); 64 bad usage; 69 splashd is not running or went away; 74 I/O error; 75 timed \
            out; 76 unexpected reply; 77 permission denied.
            """,
        version: splashdVersion,
        subcommands: [
            Status.self, Watch.self, Wait.self, Ping.self,
            Retry.self, ContinueOffline.self, Dismissed.self, Complete.self, Action.self, Open.self, Relaunch.self, Resume.self,
            Update.self, Shutdown.self, PsplashWrite.self, Screenshot.self,
            Blame.self, CriticalChain.self, Plot.self, Graph.self, History.self, Logs.self,
        ]
    )

    @Option(help: ArgumentHelp("The daemon's socket.", discussion: "Default: $SPLASHD_SOCKET, else \(SocketDefaults.path)."))
    var socket: String?

    public init() {}

    /// Whether a program called `argv0` (its path as run) is `psplash-write` (the package's link).
    public static func isPsplashWrite(_ argv0: String) -> Bool {
        argv0.split(separator: "/", omittingEmptySubsequences: false).last == "psplash-write"
    }

    /// `psplash-write` called by that name: exactly psplash's command line, no options.
    public static func psplashWriteMain() -> Never {
        Glibc.exit(PsplashWrite.write(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current()))
    }

    /// Whether a program called `argv0` (its path as run) is `splashctl`.
    public static func isCalled(_ argv0: String) -> Bool {
        argv0.split(separator: "/", omittingEmptySubsequences: false).last == "splashctl"
    }
}
