#if canImport(Glibc)
    import Glibc
#endif
import Logging
import NIOPosix
import SplashCommandLine
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
enum SplashdWeb {
    static let spec = CommandSpec(
        name: "splashd-web",
        abstract: "Serve the splash page and relay splashd's states to it.",
        discussion: """
            Prints the page's URL (with its per-start token) as the first line on stdout and writes
            it to --url-file; open it in a kiosk browser. Commands are accepted only from that page.
            """,
        subcommands: [Run.spec, Check.spec],
        defaultSubcommand: "run"
    )

    static func main() async {
        let parsed = CommandLineTool.parse(spec, version: splashdVersion)
        var failure: (any Error)?
        do {
            if parsed.subcommand == "check" { try Check(parsed).run() } else { try await Run(parsed).run() }
        } catch {
            failure = error
        }
        CommandLineTool.exit(spec, parsed, after: failure)
    }
}

extension SplashdWeb {
    struct Run {
        static let spec = CommandSpec(
            name: "run", abstract: "Serve the page until SIGTERM or SIGINT (the default).",
            options: [
                OptionSpec("socket", help: "splashd's socket (default: $SPLASHD_SOCKET or /run/splashd/splashd.sock).", completion: .file),
                OptionSpec("listen", help: "The loopback address and port to serve on (port 0: any free one).", defaultValue: defaultListen),
                OptionSpec("theme", help: "The theme directory (default: /etc/splashd/theme, else the shipped default).", completion: .directory),
                OptionSpec("web-root", help: "The page's files (default: the installed ones).", completion: .directory),
                OptionSpec("url-file", help: "Also write the page's URL to this file.", completion: .file),
                OptionSpec("firmware-logo", help: "", defaultValue: FirmwareLogo.directory, isHidden: true),
            ])
        static let defaultListen = "127.0.0.1:8177"

        var socket: String?
        var listen: String
        var theme: String?
        var webRoot: String?
        var urlFile: String?
        var firmwareLogo: String

        init(_ parsed: ParsedCommand) {
            socket = parsed.string("socket")
            listen = parsed.string("listen") ?? Self.defaultListen
            theme = parsed.string("theme")
            webRoot = parsed.string("web-root")
            urlFile = parsed.string("url-file")
            firmwareLogo = parsed.string("firmware-logo") ?? FirmwareLogo.directory
        }

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

    struct Check {
        static let spec = CommandSpec(
            name: "check", abstract: "Validate a theme directory: exit 0, or 78 with every problem (file:line).",
            options: [OptionSpec("theme", help: "The theme directory.", isRequired: true, completion: .directory)])

        var theme: String

        init(_ parsed: ParsedCommand) {
            theme = parsed.string("theme") ?? ""
        }

        func run() throws {
            let status = ThemeCheck.run(directory: theme) { "theme \"\($0.theme.name)\" is valid (\($0.files.count) files)" }
            if status != 0 { throw ExitCode(status) }
        }
    }
}
