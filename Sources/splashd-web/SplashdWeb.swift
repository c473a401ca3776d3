#if canImport(Glibc)
    import Glibc
#endif
import ArgumentParser
import Logging
import NIOPosix
import SplashCore
import SplashProtocol
import SplashSupport
import SplashJournalWriter
import SplashTheme
import SplashWeb
import UnixSignals

/// `splashd-web`: the reference renderer's bridge. Serves the splash page on a loopback address
/// and relays splashd's states to it over a WebSocket (docs/renderer.md).
@main
struct SplashdWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "splashd-web",
        abstract: "Serve the splash page and relay splashd's states to it.",
        discussion: """
            Prints the page's URL (with its per-start token) as the first line on stdout and writes
            it to --url-file; open it in a kiosk browser. Commands are accepted only from that page.
            """,
        version: splashdVersion,
        subcommands: [Run.self, Check.self],
        defaultSubcommand: Run.self
    )
}

extension SplashdWeb {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the page until SIGTERM or SIGINT (the default).")

        @Option(help: "splashd's socket (default: $SPLASHD_SOCKET or /run/splashd/splashd.sock).")
        var socket: String?

        @Option(help: "The loopback address and port to serve on (port 0: any free one).")
        var listen: String = "127.0.0.1:8177"

        @Option(help: "The theme directory (default: /etc/splashd/theme, else the shipped default).")
        var theme: String?

        @Option(name: .customLong("web-root"), help: "The page's files (default: the installed ones).")
        var webRoot: String?

        @Option(name: .customLong("url-file"), help: "Also write the page's URL to this file.")
        var urlFile: String?

        @Option(help: .hidden)
        var firmwareLogo = FirmwareLogo.directory

        func run() async throws {
            let environment = ProcessEnvironment.current()
            LogOutput.bootstrap(format: .auto, level: .info, environment: environment)
            let logger = Logger(label: "splashd-web")
            guard let (host, port) = Self.split(listen) else {
                throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:8177 or [::1]:8177")
            }
            let site: WebSite
            do {
                let themeDirectory = theme ?? SharedFiles.defaultTheme(holding: "web/index.html")
                site = try WebSite(
                    webRoot: webRoot ?? SharedFiles.directory(holding: "web/index.html") + "/web",
                    themeDirectory: themeDirectory,
                    // (The theme is read here once more, to know whether it asks: a few kilobytes.)
                    firmwareLogo: (try? ThemeLoader.load(directory: themeDirectory)).flatMap { loaded in
                        FirmwareLogo.read(for: loaded.theme, from: firmwareLogo) { logger.info("\($0)") }
                    }
                )
            } catch {
                StandardStreams.write("splashd-web: cannot serve the page:\n\(error)\n")
                throw ExitCode(78)
            }
            let socketPath = socket ?? SocketDefaults.path(environment: environment)
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let server: WebServer
            do {
                server = try await WebServer.start(
                    host: host, port: port, site: site, socketPath: socketPath, group: group, logger: logger
                )
            } catch {
                StandardStreams.write("splashd-web: \(error)\n")
                try? await group.shutdownGracefully()
                throw ExitCode(69)
            }
            StandardStreams.write(server.url + "\n", to: 1)
            if let urlFile {
                do {
                    // 0640 whatever the umask: the URL holds the token, for the owner and the
                    // group (splash, the control group) only.
                    try AtomicFile.write(Array((server.url + "\n").utf8), to: urlFile, mode: 0o640)
                } catch {
                    StandardStreams.write("splashd-web: \(error)\n")
                    await server.close()
                    try? await group.shutdownGracefully()
                    throw ExitCode(73)  // EX_CANTCREAT
                }
            }
            logger.info("serving the splash page for \(socketPath) on \(server.url.prefix { $0 != "?" })")
            let notifier = SystemdNotifier(environment: environment)
            _ = notifier.notify("READY=1\nSTATUS=serving \(server.url.prefix { $0 != "?" })")
            for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
            _ = notifier.notify("STOPPING=1")
            await server.close()
            try? await group.shutdownGracefully()
        }

        static func split(_ listen: String) -> (String, Int)? {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
                (0...65535).contains(port)
            else { return nil }
            var host = String(listen[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return host.isEmpty ? nil : (host, port)
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a theme directory: exit 0, or 78 with every problem (file:line).")

        @Option(help: "The theme directory.")
        var theme: String

        func run() throws {
            let status = ThemeCheck.run(directory: theme) { "theme \"\($0.theme.name)\" is valid (\($0.files.count) files)" }
            if status != 0 { throw ExitCode(status) }
        }
    }
}
