import CLinuxShims
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
import SplashScene

extension SplashdKMSCommand {
    /// `splashd-kms [run]`: the renderer (the default subcommand).
    struct Run {
        static let defaultDevice = "/dev/dri/card0"
        static let spec = CommandSpec(
            name: "run",
            abstract: "Draw the splash on every connected output, hand the display to the app, and take it back for every later launch (the default).",
            options: [
                OptionSpec("socket", help: "splashd's socket (default: $SPLASHD_SOCKET, else \(SocketDefaults.path)).", completion: .file),
                OptionSpec(
                    "theme", help: "The theme's directory (default: /etc/splashd/theme if it holds a theme.toml, else the shipped default, as splashd-web).",
                    completion: .directory),
                OptionSpec("device", help: "The DRM device.", defaultValue: defaultDevice, completion: .file),
                OptionSpec(
                    "rotate", help: "Turn the picture clockwise on every output: 0, 90, 180 or 270 (default: the theme's rotate, else each output's panel orientation).",
                    isInteger: true, completion: .list(["0", "90", "180", "270"])),
                OptionSpec(
                    "output", .repeating,
                    help: "Show the splash on this output only (a name such as HDMI-A-1 or Virtual-2, as the log says); repeat it for several (default: every connected output)."),
                OptionSpec(
                    "touch", .repeating,
                    help: "Presses of this input device land on this output: DEVICE=OUTPUT, DEVICE being the device's name (as the log says it) or its node (/dev/input/event3); repeat it for several.",
                    discussion: "Without it a device is on the output udev's WL_OUTPUT property names, else on the one output of its physical size (a touch screen), else on the first."),
                OptionSpec(
                    "display-lock",
                    help: "The lock held while the renderer has the display (`splashd-kms wait` waits for it; default: display.lock in $RUNTIME_DIRECTORY, as systemd's unit sets it, else none).",
                    completion: .file),
                OptionSpec("dark", .flag, help: "The theme's dark palette."),
                OptionSpec("firmware-logo", help: "", defaultValue: FirmwareLogo.directory, isHidden: true),
                OptionSpec(
                    "cache-dir",
                    help: "Where the first-frame cache is kept: the theme's still view per output size and turn, shown as the next start's first frame (default: none; the unit gives /var/cache/splashd-kms).",
                    discussion: "A file answers only for the theme, palette and firmware logo it was drawn from; the renderer checks it against a fresh drawing once the splash stands still, and rewrites it when it differs. Beside the pictures it writes their index (first-frames), from which /usr/lib/splashd/splashd-kms-first-frame, the unit's ExecStart, shows them before this renderer has started, then becomes it (SPLASHD_KMS_FIRST_FRAMES hands the device over). docs/renderer-kms.md, \"From power-on\".",
                    completion: .directory),
                OptionSpec(
                    "font-dir", .repeating,
                    help: "Draw with the fonts in this directory only, read by fontconfig with no configuration file (default: the system's fontconfig set-up); repeat it for several.",
                    discussion: "The initramfs's renderer: the hook names the directories it copied the theme's fonts to. No XML is parsed, so the renderer never waits for the kernel's random numbers early in boot (expat seeds its hash table with them). docs/renderer-kms.md, \"From the initramfs\".",
                    completion: .directory),
                OptionSpec(
                    "new-root", help: "Started in the initramfs: the real root will be mounted at this directory (initramfs-tools' $rootmnt, /root).",
                    discussion: "The renderer marks itself to survive the switch (@ first on its command line), writes its PID to /run/splashd-kms/initramfs.pid, and moves into the real root on SIGUSR1 (the initramfs's init-bottom script sends it), answering in /run/splashd-kms/new-root. docs/renderer-kms.md, \"From the initramfs\".",
                    completion: .directory),
            ])

        var socket: String?
        var theme: String?
        var device: String
        var rotate: Int?
        var outputs: [String]
        var touch: [String]
        var displayLock: String?
        var dark: Bool
        var firmwareLogo: String
        var cacheDir: String?
        var newRoot: String?
        var fontDirectories: [String]

        init(_ parsed: ParsedCommand) {
            socket = parsed.string("socket")
            theme = parsed.string("theme")
            device = parsed.string("device") ?? Self.defaultDevice
            rotate = parsed.integer("rotate")
            outputs = parsed.strings("output")
            touch = parsed.strings("touch")
            displayLock = parsed.string("display-lock")
            dark = parsed.flag("dark")
            firmwareLogo = parsed.string("firmware-logo") ?? FirmwareLogo.directory
            cacheDir = parsed.string("cache-dir")
            newRoot = parsed.string("new-root")
            fontDirectories = parsed.strings("font-dir")
        }

        /// What the still view is drawn from, for the first-frame cache: the renderer's version, the
        /// theme as loaded and its files, the palette, the firmware's logo and its place.
        static func fingerprint(_ loaded: ThemeLoader.Loaded, dark: Bool, firmware: FirmwareLogo?) -> UInt64 {
            var parts: [[UInt8]] = [Array("splashd-kms \(splashdVersion)".utf8), Array(String(describing: loaded.theme).utf8), [dark ? 1 : 0]]
            for (name, file) in loaded.files.sorted(by: { $0.key < $1.key }) { parts += [Array(name.utf8), file.bytes] }
            if let firmware {
                parts.append(Array("\(firmware.width)x\(firmware.height)+\(firmware.x)+\(firmware.y)".utf8))
                parts.append(firmware.file)
            }
            return FirstFrameCache.fingerprint(parts)
        }

        func validate() throws {
            if let rotate, SplashRotation(rawValue: rotate) == nil { throw ValidationError("--rotate takes 0, 90, 180 or 270") }
            if TouchMapping.parse(touch) == nil { throw ValidationError("--touch takes DEVICE=OUTPUT, e.g. \"ILITEK ILITEK-TP=HDMI-A-2\"") }
        }

        func run() throws {
            try validate()
            let environment = ProcessEnvironment.current()
            // splashd-kms-first-frame's hand-over, read before this process opens anything (the
            // journal's socket, the lock): a descriptor it names must be one this process was
            // started with, or a number a later open reused would be taken for the device. The
            // variable goes, so no child inherits it.
            let handOverText = environment[FirstFrameIndex.handOverVariable]
            let handOver = handOverText.flatMap(FirstFrameIndex.handOver).flatMap { fcntl($0.descriptor, F_GETFD) >= 0 ? $0 : nil }
            unsetenv(FirstFrameIndex.handOverVariable)
            LogOutput.bootstrap(format: .auto, level: .info, environment: environment, identifier: "splashd-kms")
            let logger = Logger(label: "splashd-kms")
            if handOverText != nil, handOver == nil {
                logger.warning("\(FirstFrameIndex.handOverVariable) names no descriptor this process was started with: ignored")
            }
            if let newRoot {
                do {
                    try Initramfs.prepare(newRoot: newRoot)
                } catch {
                    logger.error("\(error)")
                    throw ExitCode(73)
                }
            }
            if !fontDirectories.isEmpty {
                // Before anything asks fontconfig (the painter's preparation does, on its thread).
                let faces = FontDirectories.useOnly(fontDirectories) { logger.warning("\($0)") }
                logger.info("fonts: \(faces) from \(fontDirectories.joined(separator: ", ")), no fontconfig configuration read")
            }
            let painter: SplashPainter
            var frameCache: FrameCacheStore?
            do {
                let theme = self.theme ?? SharedFiles.defaultTheme(holding: "themes/default/theme.toml")
                let loaded = try ThemeLoader.load(directory: theme)
                let firmware = FirmwareLogo.read(for: loaded.theme, from: firmwareLogo) { logger.info("\($0)") }
                painter = try SplashPainter(loaded, directory: theme, dark: dark ? true : nil, firmwareLogo: firmware,
                                            deferred: true, logo: IsolatedLogo.init)
                if let cacheDir {
                    var store = FrameCacheStore(directory: cacheDir, fingerprint: Self.fingerprint(loaded, dark: dark, firmware: firmware))
                    store.arguments = FirstFrameIndex.argumentsHash(Array(CommandLine.arguments.dropFirst()))
                    store.sources = (["theme.toml"] + loaded.files.keys.sorted()).compactMap { FirstFrameIndex.Source(stating: theme + "/" + $0) }
                    // The shipped theme stands only while no theme is in /etc/splashd/theme.
                    if self.theme == nil, theme != SharedFiles.etcTheme { store.absent = [SharedFiles.etcTheme + "/theme.toml"] }
                    frameCache = store
                }
                painter.onLogoFailure = { logger.warning("\($0); the splash is drawn without it") }
                painter.onFontFailure = { logger.warning("\($0); the texts are drawn in the theme's font or sans-serif") }
            } catch {
                logger.error("\(error)")
                throw ExitCode(78)
            }
            // The display is ours from here until the hand-off: `splashd-kms wait` (the hand-off
            // unit, or the app's ExecStartPre) waits for this lock, and systemd starts that unit once
            // this one is ready.
            let lockPath = displayLock ?? environment["RUNTIME_DIRECTORY"].map { "\($0.split(separator: ":").first ?? "")/display.lock" }
            var lock: DisplayLock?
            if let lockPath {
                do {
                    lock = try DisplayLock(path: lockPath)
                } catch {
                    logger.error("\(error)")
                    throw ExitCode(73)
                }
            }
            _ = SystemdNotifier(environment: environment).notify("READY=1\nSTATUS=Waiting for the display")
            // SIGTERM and SIGINT end the loop in every stage (waiting for the device, for splashd's
            // socket, for master, or showing), and the renderer exits 0.
            let signals = splashd_signalfd_termination()
            guard signals >= 0 else {
                logger.error("cannot watch for SIGTERM: \(String(cString: strerror(errno)))")
                throw ExitCode(71)
            }
            // The frames drawn while the logo's child draws show the name and tagline without it.
            painter.waitsForLogo = false
            let machine = RendererMachine(
                theme: painter.theme, touch: TouchMapping.parse(touch) ?? TouchMapping(), cachesFirstFrames: frameCache != nil,
                helperFrames: handOver != nil, logoPending: painter.logoPending
            ) { view, width, height, x, y in
                painter.layout(view, width: width, height: height).button(atX: x, y: y)
            }
            // splashd-kms-first-frame showed the cache's pictures and became this process: the device
            // it opened is this renderer's.
            let loop = RendererLoop(machine: machine, painter: painter, device: device, socket: socket ?? SocketDefaults.path(environment: environment),
                                    rotation: (rotate ?? painter.theme.rotate).flatMap(SplashRotation.init), names: outputs, lockPath: lockPath,
                                    lock: lock, frameCache: frameCache, handOver: handOver, signals: signals, logger: logger)
            do {
                try loop.run()
            } catch let error as KMSError {
                logger.error("\(error)")
                throw ExitCode(69)
            } catch let error as ClientError {
                logger.error("\(error)")
                throw ExitCode(error.exitCode)
            }
        }
    }
}
