#if canImport(Glibc)
import Glibc
#endif
public import ArgumentParser
import Logging
import SplashConfig
import SplashCore
import SplashProtocol
import SplashctlCommands
import SplashDaemon
import SplashJournalWriter
import SplashSupport

/// The entry point: `splashctl` when called by that name (the package's `splashctl` is a link to
/// this executable); else the run command line in its usual forms is read directly
/// (`RunArguments`, no reflection), anything else by swift-argument-parser, which owns help,
/// `check` and every error.
@main
enum SplashdEntry {
    static func main() async {
        if let name = CommandLine.arguments.first, Splashctl.isPsplashWrite(name) {
            Splashctl.psplashWriteMain()
        }
        if let name = CommandLine.arguments.first, Splashctl.isCalled(name) {
            Splashctl.main()
            return
        }
        guard let arguments = RunArguments.parse(Array(CommandLine.arguments.dropFirst())) else {
            await Splashd.main()
            return
        }
        do {
            try await Splashd.Run.runDaemon(arguments)
        } catch {
            Splashd.exit(withError: error)
        }
    }
}

/// `splashd`: runs the daemon (the default), or checks a configuration.
struct Splashd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "splashd",
        abstract: "The splash-screen daemon for kiosk and embedded Linux displays.",
        version: splashdVersion,
        subcommands: [Run.self, Check.self],
        defaultSubcommand: Run.self
    )
}

/// Options both subcommands share.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "The configuration file (default: /etc/splashd/splashd.toml, else the embedded default).")
    var config: String?

    @Option(name: .customLong("plugin-dir"), help: "An extra plugin directory (repeatable).")
    var pluginDirectories: [String] = []
}

extension Splashd {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run in the foreground until SIGTERM or SIGINT (the default).")

        @OptionGroup var common: CommonOptions

        @Option(help: "The socket path (default: the config's, $SPLASHD_SOCKET, or /run/splashd/splashd.sock).")
        var socket: String?

        @Option(name: .customLong("state-dir"), help: "Where launch state is kept (default: $STATE_DIRECTORY or /var/lib/splashd).")
        var stateDirectory: String?

        @Option(name: .customLong("log-format"), help: "auto, journal, text or json.")
        var logFormat: RunArguments.LogFormat = .auto

        @Flag(help: "Log debug records too.")
        var verbose = false

        func run() async throws {
            try await Self.runDaemon(RunArguments(
                config: common.config,
                socket: socket,
                stateDirectory: stateDirectory,
                pluginDirectories: common.pluginDirectories,
                logFormat: logFormat,
                verbose: verbose
            ))
        }

        /// Runs the daemon until SIGTERM or SIGINT; both command-line readers end here.
        static func runDaemon(_ arguments: RunArguments) async throws {
            let environment = ProcessEnvironment.current()
            LogOutput.bootstrap(format: arguments.logFormat, level: arguments.verbose ? .debug : .info, environment: environment)
            let logger = Logger(label: "splashd")
            let options = DaemonOptions(
                configPath: arguments.config,
                socketPath: arguments.socket,
                stateDirectory: arguments.stateDirectory
                    ?? environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init) ?? "/var/lib/splashd",
                pluginDirectories: arguments.pluginDirectories,
                environment: environment
            )
            do {
                try await Daemon.run(options: options, logger: logger)
            } catch let error as DaemonStartError {
                logger.critical("\(error.description)")
                throw ExitCode(error.exitCode)
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Validate a configuration; exit 78 with every problem found if it is not valid.")

        @OptionGroup var common: CommonOptions

        @Flag(
            help: "Print only [app]'s unit (nothing when there is no [app]): the unit a daemon started with this configuration watches, and may start, restart and kill."
        )
        var printAppUnit = false

        @Option(
            help: ArgumentHelp(
                "Write [app]'s unit to this file (root's, mode 0644; empty without [app] or when the configuration is not valid): the polkit grant of the daemon about to start.",
                discussion: "splashd.service runs it as root before the daemon (ExecStartPre=+), writing /run/splashd-grant/app-unit, which the shipped polkit rule reads: the grant follows the unit the running daemon watches, not the configuration file as it is now.",
                valueName: "file"
            )
        )
        var writeAppGrant: String?

        func run() async throws {
            LoggingSystem.bootstrap { label in StderrLogHandler(label: label, format: .text, level: .warning) }
            let options = DaemonOptions(configPath: common.config, pluginDirectories: common.pluginDirectories)
            let config: DaemonConfig
            let catalog: PluginCatalog
            do {
                (config, catalog) = try Daemon.loadConfiguration(options: options, logger: Logger(label: "splashd"))
            } catch {
                // No grant for a configuration the daemon will refuse to start with.
                if let writeAppGrant { try Self.writeGrant(nil, to: writeAppGrant) }
                for problem in error.problems { StandardStreams.printError("splashd: \(problem)") }
                throw ExitCode(78)
            }
            if let writeAppGrant {
                try Self.writeGrant(config.app?.unit, to: writeAppGrant)
                return
            }
            if printAppUnit {
                if let unit = config.app?.unit { print(unit) }
                return
            }
            let external = config.graph.steps.filter { catalog.manifests[$0.plugin] != nil }.count
            print("\(config.source): OK, \(config.graph.steps.count) steps (\(external) external)")
        }

        /// Replaces `path` with `unit` (nothing for nil), readable by polkitd, in a directory
        /// only root may change (so that the daemon's user cannot replace the file).
        static func writeGrant(_ unit: String?, to path: String) throws {
            if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                let directory = String(path[..<slash])
                if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                    StandardStreams.printError("splashd: cannot make \(directory): \(String(cString: strerror(errno)))")
                    throw ExitCode(1)
                }
                // The service's UMask= would leave it 0700.
                _ = chmod(directory, 0o755)
            }
            do {
                try AtomicFile.write(Array((unit.map { $0 + "\n" } ?? "").utf8), to: path, mode: 0o644)
            } catch {
                StandardStreams.printError("splashd: \(error)")
                throw ExitCode(1)
            }
        }
    }
}

/// The parser reads `--log-format` into the same type the fast reader uses.
extension RunArguments.LogFormat: ExpressibleByArgument {}
