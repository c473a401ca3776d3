import ArgumentParser
import Glibc
import SplashClient
import SplashCore
import SplashDraw
import SplashKMS
import SplashSupport
import SplashSystemd
import SplashTheme

/// `splashd-kms`: the native renderer (SPEC §13): the theme drawn on every connected output
/// through DRM/KMS, following splashd's states; `splashd-kms check --theme DIR` says whether it
/// can draw a theme.
@main
struct SplashdKMSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "splashd-kms",
        abstract: "Draw the splash on the display through DRM/KMS (no browser, no compositor).",
        version: splashdVersion,
        subcommands: [SplashdKMS.self, Check.self, Wait.self],
        defaultSubcommand: SplashdKMS.self
    )

    /// `splashd-kms check --theme DIR`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that a theme can be drawn: exit 0, or 78 with every problem (file:line, or the file).")

        @Option(help: "The theme directory.")
        var theme: String

        func run() throws {
            let status = ThemeCheck.run(directory: theme) { loaded in
                // Drawn once in memory: the logo read and drawn (SVG or PNG), the texts laid out.
                let painter = try SplashPainter(loaded, directory: theme)
                painter.draw(SplashView(), at: .init(sinceShown: 2000), into: SplashImage(width: 320, height: 480))
            } verdict: {
                "theme \"\($0.theme.name)\" can be drawn (\($0.files.count) files)"
            }
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// `splashd-kms wait`: what the hand-off unit runs (SPEC §13), so the app's unit starts once
    /// it may take the display.
    struct Wait: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait until the renderer has given the display up (at once if none is running): the hand-off unit runs it.",
            discussion: """
                The renderer holds a lock on the file while it has the display, and removes it when it gives the \
                display up (or the kernel lets the lock go when it dies). The wait takes no CPU: it is a blocked \
                flock(2). splashd-kms-handoff.service runs it; order the app's unit after that unit.
                """)

        @Option(help: "The renderer's display lock.")
        var lock = DisplayLock.defaultPath

        func run() throws {
            DisplayLock.waitUntilFree(lock)
        }
    }
}

/// Runs the renderer (the default).
struct SplashdKMS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Draw the splash on every connected output until the app takes the display (the default)."
    )

    @Option(help: "splashd's socket (default: $SPLASHD_SOCKET, else \(SocketDefaults.path)).")
    var socket: String?

    @Option(help: "The theme's directory (default: /etc/splashd/theme if it holds a theme.toml, else the shipped default, as splashd-web).")
    var theme: String?

    @Option(help: "The DRM device.")
    var device = "/dev/dri/card0"

    @Option(help: "Turn the picture clockwise on every output: 0, 90, 180 or 270 (default: the theme's rotate, else each output's panel orientation).")
    var rotate: Int?

    @Option(name: .customLong("output"), help: "Show the splash on this output only (a name such as HDMI-A-1 or Virtual-2, as the log says); repeat it for several (default: every connected output).")
    var outputs: [String] = []

    @Option(help: "The lock held while the renderer has the display (`splashd-kms wait` waits for it; default: display.lock in $RUNTIME_DIRECTORY, as systemd's unit sets it, else none).")
    var displayLock: String?

    @Flag(help: "The theme's dark palette.")
    var dark = false

    /// How long after this process started, and after the kernel did, it is now (the kernel's
    /// boot clock, which counts suspend too, and the process's start from /proc/self/stat).
    static func startReport() -> String {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let boot = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        let stat = (try? FileSystem.readFile("/proc/self/stat", limit: 4096)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        // Field 22, counted after the command name's closing parenthesis (the name may hold spaces).
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        let ticks = fields.count > 19 ? Double(fields[19]) : nil
        let start = ticks.map { $0 / Double(sysconf(Int32(_SC_CLK_TCK))) }
        func seconds(_ value: Double) -> String { "\((value * 1000).rounded() / 1000) s" }
        return start.map { "\(seconds(boot - $0)) after the process started, \(seconds(boot)) after the kernel did" }
            ?? "\(seconds(boot)) after the kernel started"
    }

    func validate() throws {
        if let rotate, SplashRotation(rawValue: rotate) == nil { throw ValidationError("--rotate takes 0, 90, 180 or 270") }
    }

    func run() throws {
        let painter: SplashPainter
        do {
            let theme = self.theme ?? SharedFiles.defaultTheme(holding: "themes/default/theme.toml")
            painter = try SplashPainter(ThemeLoader.load(directory: theme), directory: theme, dark: dark ? true : nil)
        } catch {
            StandardStreams.printError("splashd-kms: \(error)")
            throw ExitCode(78)
        }
        let environment = ProcessEnvironment.current()
        // The display is ours from here until the hand-off: `splashd-kms wait` (the hand-off
        // unit) waits for this lock, and systemd starts that unit once this one is ready.
        var lock: DisplayLock?
        if let path = displayLock ?? environment["RUNTIME_DIRECTORY"].map({ "\($0.split(separator: ":").first ?? "")/display.lock" }) {
            do {
                lock = try DisplayLock(path: path)
            } catch {
                StandardStreams.printError("splashd-kms: \(error)")
                throw ExitCode(73)
            }
        }
        _ = SystemdNotifier(environment: environment).notify("READY=1\nSTATUS=Waiting for the display")
        let renderer: Renderer
        do {
            // Early in boot the GPU's driver may not be loaded yet: wait for its device.
            let drm = try DeviceWait.open(device) {
                StandardStreams.printError("splashd-kms: waiting for \(device) to appear")
            }
            // Another process has the display (the app, after a hand-off: this renderer was
            // started again): nothing to draw, and nothing to take from it.
            guard drm.isMaster else {
                StandardStreams.printError("splashd-kms: another process is \(device)'s master (the app has the display): nothing to draw")
                return
            }
            renderer = Renderer(device: drm, painter: painter, rotation: (rotate ?? painter.theme.rotate).flatMap(SplashRotation.init),
                                names: outputs)
            renderer.lock = lock
            try renderer.open()
            renderer.hotplug = HotplugMonitor()
        } catch {
            StandardStreams.printError("splashd-kms: \(error)")
            throw ExitCode(69)
        }
        // The first frame at once: the theme's background, before splashd answers.
        renderer.frame()
        StandardStreams.printError("splashd-kms: first frame on \(renderer.outputs.map(\.description).joined(separator: ", ")) "
            + Self.startReport())
        let path = socket ?? SocketDefaults.path(environment: environment)
        do {
            // splashd may start after the renderer (this one starts with the earliest boot
            // services): wait for its socket, as for the device.
            try DeviceWait.until(exists: path) { StandardStreams.printError("splashd-kms: waiting for \(path) to appear") }
            let connection = try SplashConnection(path: path)
            try renderer.follow(connection)
        } catch let error as KMSError {
            StandardStreams.printError("splashd-kms: \(error)")
            throw ExitCode(69)
        } catch let error as ClientError {
            StandardStreams.printError("splashd-kms: \(error)")
            throw ExitCode(error.exitCode)
        }
    }
}

/// Draws the latest state on every output, a frame per vertical blank while something moves and
/// none while nothing does.
final class Renderer {
    var device: DRMDevice
    var outputs: [DRMOutput] = []
    let painter: SplashPainter
    /// `--rotate` or the theme's `rotate`: every output turned so, whatever its panel says.
    let rotation: SplashRotation?
    /// `--output`: only these outputs (none named: every connected one).
    let names: Set<String>
    /// Held from the start until the display is given up (`splashd-kms wait`).
    var lock: DisplayLock?
    let start = ContinuousClock.now
    var view = SplashView()
    var slowSince: ContinuousClock.Instant?
    /// A frame could not be shown: the loop tries again instead of waiting for the next state.
    var stale = false
    /// The last frame was drawn mid-animation: once the animation is over, one more frame shows
    /// its end (a slow display may not have drawn a frame near it: the VM's last entry frame was
    /// at 350 ms and the picture stayed half faded in).
    var drawnMoving = false

    init(device: DRMDevice, painter: SplashPainter, rotation: SplashRotation?, names: [String]) {
        self.device = device
        self.painter = painter
        self.rotation = rotation
        self.names = Set(names)
    }

    /// The outputs to draw on, from the device: the connected ones (or those `--output` named).
    func open() throws(KMSError) {
        try openOutputs()
        input = InputDevices(width: 1, height: 1)
        fitInput()
    }

    /// Presses are reported in the first output's pixels (a touch screen is taken to be that
    /// output's; one mapped to another output is still to come).
    private func fitInput() {
        guard let first = outputs.first else { return }
        input?.width = Double(first.width)
        input?.height = Double(first.height)
    }

    private func openOutputs() throws(KMSError) {
        for info in try connectedOutputs() { outputs.append(try output(info)) }
        if outputs.isEmpty, !names.isEmpty {
            StandardStreams.printError("splashd-kms: none of \(names.sorted().joined(separator: ", ")) is connected yet")
        }
    }

    /// The device went away (its driver unbound; early in boot, a firmware framebuffer such as
    /// simpledrm replaced by the real GPU's driver, which takes the same node): the outputs are
    /// let go, and the renderer waits for the node to come back (inotify, as at start) and
    /// draws the splash on it again.
    func deviceRemoved() {
        StandardStreams.printError("splashd-kms: \(device.path) went away: waiting for it to come back")
        outputs.removeAll()
        device.close()
        do {
            let drm = try DeviceWait.open(device.path)
            device = drm
            guard drm.isMaster else {
                StandardStreams.printError("splashd-kms: another process is \(drm.path)'s master: nothing to draw")
                return
            }
            try openOutputs()
        } catch {
            StandardStreams.printError("splashd-kms: \(error)")
            return
        }
        fitInput()
        frame()
        StandardStreams.printError("splashd-kms: \(device.path) is back: the splash on \(outputs.map(\.description).joined(separator: ", "))")
    }

    private func connectedOutputs(keeping kept: [DRMDevice.OutputInfo] = []) throws(KMSError) -> [DRMDevice.OutputInfo] {
        try device.connectedOutputs(keeping: kept).filter { names.isEmpty || names.contains($0.name) }
    }

    private func output(_ info: DRMDevice.OutputInfo) throws(KMSError) -> DRMOutput {
        let output = try DRMOutput(device: device, info: info)
        output.rotation = rotation ?? info.panelRotation ?? .none
        return output
    }

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    var times: SplashTimeline.Times {
        let now = ContinuousClock.now
        return .init(sinceShown: Self.ms(now - start), sinceSlow: slowSince.map { Self.ms(now - $0) })
    }

    /// Draws one frame on every output and waits for their flips: a flip asked for while the
    /// last one is still pending would be refused (EBUSY) and the frame lost, so a frame waits
    /// for the one before it, however slow the display (a loaded virtual machine took more than
    /// 100 ms once).
    func frame() {
        let times = self.times
        stale = false
        drawnMoving = painter.timeline.isMoving(view, at: times)
        for output in outputs {
            waitForFlips(of: output)
            do {
                try output.present { image in painter.draw(view, at: times, into: image, rotation: output.rotation, focus: ringed) }
            } catch {
                StandardStreams.printError("splashd-kms: \(error)")
                stale = true
            }
        }
        for output in outputs { waitForFlips(of: output) }
    }

    /// Handles the device's events until `output` has no flip pending (at most 2 s: a display
    /// that never completes a flip is reported, and the next frame tries again).
    private func waitForFlips(of output: DRMOutput) {
        let deadline = ContinuousClock.now + .seconds(2)
        while output.flipPending {
            let left = Self.ms(deadline - .now)
            guard left > 0 else {
                StandardStreams.printError("splashd-kms: \(output.info.name): no flip for 2 s")
                return
            }
            DRMEvents.handle(device, timeoutMs: Int32(left.rounded(.up)))
        }
    }

    /// Input devices for the error view's buttons (none: touch and keys do nothing).
    var input: InputDevices?
    /// Outputs plugged in and out (none: the outputs found at start stay the outputs).
    var hotplug: HotplugMonitor?
    /// The button Enter presses (Retry unless Tab or an arrow moved on).
    var focus = 0
    /// A key moved the focus: the focused button shows its ring (the page's `:focus-visible`).
    var focusVisible = false

    /// The button with the focus ring, if one has it.
    var ringed: SplashView.Button? {
        guard focusVisible, let buttons = view.error?.buttons, !buttons.isEmpty else { return nil }
        return buttons[min(focus, buttons.count - 1)]
    }

    func follow(_ connection: SplashConnection) throws(ClientError) {
        // Without the 100 ms ticks splashd publishes while loading (they move only the clocks
        // and a time-tracked progress), unless the theme shows progress: the renderer then sleeps
        // until something it draws changes.
        switch try connection.request(painter.theme.showProgress ? .subscribe : .subscribeWithoutTicks) {
        case .ok: break
        case .error(let error): throw .rejected(error)
        default: throw .invalidMessage("unexpected reply to subscribe")
        }
        while true {
            var message: ServerMessage?
            if connection.hasBufferedInput { message = try receiveNow(connection) }
            if message == nil {
                let moving = painter.timeline.isMoving(view, at: times)
                let ready = wait(on: connection, timeoutMs: moving || drawnMoving ? 0 : stale ? 100 : -1)
                if ready.input, let input { try act(on: input.read(), connection) }
                if ready.hotplug, let hotplug {
                    let events = hotplug.read()
                    for node in events.inputAdded where input?.add(node) == true {
                        StandardStreams.printError("splashd-kms: input device \(node) added")
                    }
                    if events.drmRemoved.contains(device.node) {
                        deviceRemoved()
                    } else if events.outputsChanged {
                        rescan(since: .now)
                    }
                }
                if ready.socket { message = try receiveNow(connection) }
                if message == nil {
                    if moving || stale || drawnMoving { frame() }
                    continue
                }
            }
            guard case .state(let state)? = message else { continue }
            // The app may take the display once its destination is decided and only signal
            // steps are left (the moment the page starts loading the app), or at dismissing.
            if state.destination != nil || state.phase == .dismissing || state.phase == .finished {
                try handOff(connection, phase: state.phase)
                return
            }
            let next = SplashView(state: state, theme: painter.theme)
            if next.slow, slowSince == nil { slowSince = .now }
            if !next.slow { slowSince = nil }
            if next.error == nil || view.error == nil {
                focus = 0
                focusVisible = false
            }
            // splashd publishes as the launch goes on; a state that looks as the last did is
            // not drawn again (nothing is redrawn while nothing moves).
            guard next != view else { continue }
            view = next
            frame()
        }
    }

    private func receiveNow(_ connection: SplashConnection) throws(ClientError) -> ServerMessage? {
        do {
            return try connection.receive(timeout: .zero)
        } catch .timedOut {
            return nil
        }
    }

    /// Waits (poll(2), at most `timeoutMs`; −1: until something comes) for the socket, the input
    /// devices or a hotplug event.
    private func wait(on connection: SplashConnection, timeoutMs: Int32) -> (socket: Bool, input: Bool, hotplug: Bool) {
        var fds = [pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: input?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: hotplug?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, nfds_t(fds.count), timeoutMs) > 0 else { return (false, false, false) }
        return (fds[0].revents != 0, fds[1].revents != 0, fds[2].revents != 0)
    }

    /// After a hotplug event: an output connected since shows the splash (laid out for its own
    /// size); one unplugged is let go. The others are not touched.
    func rescan(since event: ContinuousClock.Instant) {
        let infos: [DRMDevice.OutputInfo]
        do {
            infos = try connectedOutputs(keeping: outputs.map(\.info))
        } catch {
            StandardStreams.printError("splashd-kms: \(error)")
            return
        }
        let connected = Set(infos.map(\.connector))
        for output in outputs where !connected.contains(output.info.connector) {
            waitForFlips(of: output)
            StandardStreams.printError("splashd-kms: \(output.info.name) unplugged: let go")
        }
        outputs.removeAll { !connected.contains($0.info.connector) }
        var plugged: [DRMOutput] = []
        for info in infos where !outputs.contains(where: { $0.info.connector == info.connector }) {
            do {
                let new = try output(info)
                outputs.append(new)
                plugged.append(new)
            } catch {
                StandardStreams.printError("splashd-kms: \(info.name): \(error)")
            }
        }
        fitInput()
        frame()
        for new in plugged {
            StandardStreams.printError("splashd-kms: \(new) plugged in: the splash on it \(Int(Self.ms(.now - event).rounded())) ms after udev's event")
        }
    }

    /// Touch, pointer and keys in the error view: Retry and Continue offline (SPEC §13).
    private func act(on actions: [InputAction], _ connection: SplashConnection) throws(ClientError) {
        guard view.phase == .error, let error = view.error, !error.buttons.isEmpty, let first = outputs.first else { return }
        for action in actions {
            var pressed: SplashView.Button?
            switch action {
            case .press(let x, let y):
                let w = Double(first.width), h = Double(first.height)
                let rotation = first.rotation
                // The buffer's point in the upright picture (the inverse of the turn).
                let (ux, uy): (Double, Double) =
                    switch rotation {
                    case .none: (x, y)
                    case .quarter: (y, w - x)
                    case .half: (w - x, h - y)
                    case .threeQuarters: (h - y, x)
                    }
                let upright = rotation.upright(width: w, height: h)
                pressed = painter.layout(view, width: upright.width, height: upright.height).button(atX: ux, y: uy)
            case .activate:
                pressed = error.buttons[min(focus, error.buttons.count - 1)]
            case .focusNext, .focusPrevious:
                let step = action == .focusNext ? 1 : error.buttons.count - 1
                focus = (focus + step) % error.buttons.count
                focusVisible = true
                frame()
            }
            guard let pressed else { continue }
            StandardStreams.printError("splashd-kms: \(pressed.title)")
            switch try connection.request(pressed == .retry ? .retry : .continueOffline) {
            case .error(let refused): StandardStreams.printError("splashd-kms: \(pressed.title) refused: \(refused.message)")
            default: break
            }
            return
        }
    }

    /// The hand-off with no gap (SPEC §13): no more frames, the last one stays on every output;
    /// DRM master given up and the display lock let go, so the app (its unit ordered after
    /// `splashd-kms-handoff.service`) can take the display and set its own frame. Then, once the
    /// app shows on the outputs, `dismissed` (in dismissing) and return: the process exits
    /// without turning an output off. Where the kernel has `CLOSEFB`, that is once the app shows
    /// on one output: the framebuffers are closed and an output the app does not use keeps the
    /// splash's last frame. Without it, closing the device would turn off an output that still
    /// shows one of ours, so the renderer waits until the app shows on every one. With no app
    /// taking over, the last frame stays and the renderer keeps waiting.
    func handOff(_ connection: SplashConnection, phase start: Phase) throws(ClientError) {
        for output in outputs { waitForFlips(of: output) }
        device.dropMaster()
        lock?.release()
        lock = nil
        let closeFB = device.hasCloseFramebuffer
        StandardStreams.printError("splashd-kms: handing the display to the app (\(closeFB ? "CLOSEFB" : "no CLOSEFB: waiting for every output"))")
        var phase = start
        var dismissedSent = false
        let began = ContinuousClock.now
        while true {
            let ours = outputs.filter(\.showsOwnFrame)
            let appShows = outputs.isEmpty || (closeFB ? ours.count < outputs.count : ours.isEmpty)
            if appShows, phase == .dismissing, !dismissedSent {
                _ = try connection.request(.dismissed)
                dismissedSent = true
            }
            if appShows, phase == .finished || dismissedSent {
                if !ours.isEmpty {
                    let kept = ours.filter { $0.closeFramebuffers() }.map(\.info.name)
                    StandardStreams.printError("splashd-kms: the splash stays on \(kept.joined(separator: ", ")) (CLOSEFB)")
                }
                StandardStreams.printError("splashd-kms: the app has the display")
                return
            }
            // The CRTCs are looked at every 20 ms for the first 10 s, every 250 ms after: the
            // kernel does not tell another master's mode setting. States are read meanwhile.
            let interval: Duration = ContinuousClock.now - began < .seconds(10) ? .milliseconds(20) : .milliseconds(250)
            do {
                if case .state(let state) = try connection.receive(timeout: interval) { phase = state.phase }
            } catch .timedOut {
                continue
            }
        }
    }
}
