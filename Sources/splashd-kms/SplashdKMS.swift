import Glibc
import Logging
import SplashClient
import SplashCommandLine
import SplashCore
import SplashDraw
import SplashKMS
import SplashProtocol
import SplashSupport
import SplashJournalWriter
import SplashTheme

/// `splashd-kms`: the native renderer (design §13): the theme drawn on every connected output
/// through DRM/KMS, following splashd's states; `splashd-kms check --theme DIR` says whether it
/// can draw a theme. Its command line is a `CommandSpec` (no swift-argument-parser: see
/// SplashCommandLine).
@main
enum SplashdKMSCommand {
    static let spec = CommandSpec(
        name: "splashd-kms",
        abstract: "Draw the splash on the display through DRM/KMS (no browser, no compositor).",
        subcommands: [Run.spec, Check.spec, Wait.spec, Condition.spec, RenderLogo.spec, Screenshot.spec],
        defaultSubcommand: "run"
    )

    static func main() {
        let parsed = CommandLineTool.parse(spec, version: splashdVersion)
        var failure: (any Error)?
        do {
            switch parsed.subcommand {
            case "check": try Check(parsed).run()
            case "wait": try Wait(parsed).run()
            case "condition": try Condition().run()
            case "render-logo": try RenderLogo(parsed).run()
            case "screenshot": try Screenshot(parsed).run()
            default: try Run(parsed).run()
            }
        } catch {
            failure = error
        }
        CommandLineTool.exit(spec, parsed, after: failure)
    }

    /// `splashd-kms check --theme DIR`.
    struct Check {
        static let spec = CommandSpec(
            name: "check", abstract: "Check that a theme can be drawn: exit 0, or 78 with every problem (file:line, or the file).",
            options: [
                OptionSpec("theme", help: "The theme directory.", isRequired: true, completion: .directory),
                OptionSpec(
                    "files", .flag, help: "Print the files the theme draws with instead of the verdict, one name a line: theme.toml, its logo, its font file.",
                    discussion: "What the initramfs hook copies: only these, each a regular file in the directory (never a link)."),
            ])

        var theme: String
        var files: Bool

        init(_ parsed: ParsedCommand) {
            theme = parsed.string("theme") ?? ""
            files = parsed.flag("files")
        }

        /// The files `loaded` draws with, by name in its directory: `theme.toml`, the logo (with
        /// `logo = "firmware"`, the one drawn where the firmware has none), the font file. Names
        /// are plain (`ThemeAssets`): no path, no link (the loader refuses links).
        static func files(of loaded: ThemeLoader.Loaded) -> [String] {
            [ThemeLoader.fileName] + [loaded.theme.logo, loaded.theme.fontFile].compactMap { $0 }
        }

        func run() throws {
            let status = ThemeCheck.run(directory: theme) { loaded in
                // Drawn once in memory: the logo drawn (SVG or PNG) as the renderer draws it, in a
                // child process under its budget; the texts laid out.
                let painter = try SplashPainter(loaded, directory: theme, logo: IsolatedLogo.init)
                try painter.awaitLogo()
                // The texts must draw ink: a font file cut short keeps its character map and
                // loses its glyphs, and the name then draws blank.
                let blank = painter.textsWithoutInk()
                if !blank.isEmpty {
                    let font = loaded.theme.fontFile.map { "font file \($0)" } ?? "font \(loaded.theme.font ?? "sans-serif")"
                    throw SplashDrawError.badFont(
                        path: "\(theme)/theme.toml",
                        reason: "\(blank.joined(separator: " and ")) draw no ink in the \(font): its glyphs are missing (a file cut short?)")
                }
            } verdict: {
                files ? Self.files(of: $0).joined(separator: "\n") : "theme \"\($0.theme.name)\" can be drawn (\($0.files.count) files)"
            }
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// `splashd-kms wait`: what the hand-off unit runs (design §13), so the app's unit starts once
    /// it may take the display.
    struct Wait {
        static let spec = CommandSpec(
            name: "wait", abstract: "Wait until the renderer has given the display up (at once if none is running): the hand-off unit runs it.",
            discussion: """
                The renderer holds a lock on the file while it has the display, and removes it when it gives the \
                display up (or the kernel lets the lock go when it dies). The wait takes no CPU: it is a blocked \
                flock(2). splashd-kms-handoff.service runs it; order the app's unit after that unit.
                """,
            options: [OptionSpec("lock", help: "The renderer's display lock.", defaultValue: DisplayLock.defaultPath, completion: .file)])

        var lock: String

        init(_ parsed: ParsedCommand) {
            lock = parsed.string("lock") ?? DisplayLock.defaultPath
        }

        func run() throws {
            do {
                try DisplayLock.waitUntilFree(lock)
            } catch {
                LogOutput.bootstrap(format: .auto, level: .info, environment: ProcessEnvironment.current(), identifier: "splashd-kms")
                Logger(label: "splashd-kms").error("\(error)")
                throw ExitCode(78)
            }
        }
    }
}
