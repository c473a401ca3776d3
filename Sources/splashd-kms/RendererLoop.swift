import CLinuxShims
import Glibc
import Logging
import SplashClient
import SplashCore
import SplashDraw
import SplashKMS
import SplashScene
import SplashSupport

/// The renderer's one loop: in every stage it waits (poll(2)) on the termination signals,
/// splashd's socket (or the watch for it to appear), the DRM device (or the watch for its node),
/// the input devices, udev and the logo's child, feeds what happened to the `RendererMachine`,
/// and carries out its actions with the device, the painter, the cache, the lock and the socket.
/// Every decision is the machine's; the loop polls and performs (`RendererLoop+Display.swift`,
/// `RendererLoop+Cache.swift`).
final class RendererLoop {
    var machine: RendererMachine
    let painter: SplashPainter
    let devicePath: String
    let socketPath: String
    /// `--rotate` or the theme's `rotate`: every output turned so, whatever its panel says.
    let rotation: SplashRotation?
    /// `--output`: only these outputs (none named: every connected one).
    let names: Set<String>
    let lockPath: String?
    var lock: DisplayLock?
    let logger: Logger

    var device: DRMDevice?
    /// The outputs drawn on, by connector, in the device's order.
    var outputs: [DRMOutput] = []
    /// Outputs let go that still show a frame of ours (a kernel without `CLOSEFB`): released
    /// once something else shows there.
    var kept: [DRMOutput] = []
    var input: InputDevices?
    var hotplug: HotplugMonitor?
    var connection: SplashConnection?
    /// SIGTERM and SIGINT, as a descriptor: the loop ends on them in every stage.
    let signals: Int32
    /// The device's node while it is not there (at start, or after it went away), and the words
    /// said once the splash is on it.
    var deviceWatch: (watch: PathWatch, words: (String) -> String)?
    /// splashd's socket while it is not there.
    var socketWatch: PathWatch?
    /// The machine said to connect (or the start's first connection).
    var connectWanted = true
    /// The logo's raster is drawn by its child: its pidfd is polled, and the machine is told once
    /// it came (frames show the name and tagline without it meanwhile).
    var logoAwaited = false

    /// Said once every output has shown a frame (the first frame, the device back, the splash
    /// back): its words, given the outputs.
    var announcement: ((String) -> String)?
    var presented: Set<UInt32> = []
    /// Every output showed its first frame at start.
    var startFramesShown = false

    /// The first-frame cache (`--cache-dir`), if any.
    let frameCache: FrameCacheStore?
    /// Cached still views to present as the outputs' first frames, by connector.
    var cachedFrames: [UInt32: ArraySlice<UInt8>] = [:]
    /// What `splashd-kms-first-frame` handed over: the open device, with these framebuffers on
    /// screen (its cached pictures), removed once the splash stands still on frames of ours.
    var handOver: (descriptor: Int32, framebuffers: [UInt32])?

    let origin = ContinuousClock.now
    var inbox: [RendererMachine.Input] = []

    init(machine: RendererMachine, painter: SplashPainter, device: String, socket: String, rotation: SplashRotation?, names: [String],
         lockPath: String?, lock: DisplayLock?, frameCache: FrameCacheStore?, handOver: (descriptor: Int32, framebuffers: [UInt32])? = nil,
         signals: Int32, logger: Logger) {
        self.machine = machine
        self.handOver = handOver
        self.frameCache = frameCache
        self.painter = painter
        self.devicePath = device
        self.socketPath = socket
        self.rotation = rotation
        self.names = Set(names)
        self.lockPath = lockPath
        self.lock = lock
        self.signals = signals
        self.logger = logger
    }

    var now: Duration { ContinuousClock.now - origin }

    /// Opens the device (or watches for it), draws the first frame, connects to splashd (or
    /// watches for its socket) and follows it, until SIGTERM or SIGINT.
    func run() throws {
        // Early in boot the GPU's driver may not be loaded yet: its device is watched for.
        let words: (String) -> String = { "first frame on \($0) \(Self.startReport())" }
        // The first frame at once: the theme's background, before splashd answers, and before
        // what it does not need: the input devices (libinput reads every quirks file and asks
        // udev of each device), udev's monitor, fontconfig, pango and the logo's raster.
        // With splashd-kms-first-frame's pictures on screen nothing waits for this renderer's
        // first frames: they are the still view drawn afresh, the text stack set up first.
        if let drm = adoptHandOver() {
            preparePainter()
            try deviceCame(drm, words: words)
        } else if access(devicePath, F_OK) == 0 {
            try deviceCame(DeviceWait.open(devicePath), words: words)
        } else {
            logger.info("waiting for \(devicePath) to appear")
            deviceWatch = (try PathWatch(devicePath), words)
            try lookForDevice()
        }
        hotplug = HotplugMonitor()
        input = InputDevices(width: Double(outputs.first?.width ?? 1), height: Double(outputs.first?.height ?? 1))
        if machine.stage == .away { input?.suspend() }
        preparePainter()
        // The first frames' flips may have come meanwhile (that set-up is long on a slow device):
        // the machine hears of them before anything else, not as flips lost.
        try handleFlips()
        while try turn() {}
    }

    /// The painter's deferred set-up (once: a second call does nothing); the logo's child is
    /// waited on in the loop from here.
    func preparePainter() {
        do {
            try painter.prepare()
        } catch {
            logger.warning("\(error); the texts are drawn in the theme's font or sans-serif")
        }
        logoAwaited = machine.logoPending
    }

    /// One wait and what it brought; false once SIGTERM or SIGINT came.
    private func turn() throws -> Bool {
        try takeLogo()
        if connectWanted {
            connectWanted = false
            try connectNow()
        }
        if let connection, connection.hasBufferedInput {
            try receive(connection)
            return true
        }
        var fds: [pollfd] = []
        func watching(_ fd: Int32?, _ events: Int16 = Int16(POLLIN)) -> Int {
            fds.append(pollfd(fd: fd ?? -1, events: events, revents: 0))
            return fds.count - 1
        }
        let signal = watching(signals), socket = watching(connection?.descriptor), drm = watching(device?.fd)
        let events = watching(machine.stage == .away ? nil : input?.descriptor), udev = watching(hotplug?.descriptor)
        let logo = watching(logoAwaited ? painter.logoReadiness.descriptor : nil)
        let watches = ([deviceWatch?.watch, socketWatch].compactMap { $0 }.flatMap(\.descriptors)).map { watching($0.fd, $0.events) }
        var wake = machine.nextWake(after: now)
        if logoAwaited, let deadline = painter.logoReadiness.deadline { wake = min(wake ?? (deadline - origin), deadline - origin) }
        let timeout: Int32 = wake.map { Int32(max(0, ((($0 - now) / .milliseconds(1)).rounded(.up)))) } ?? -1
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        // (poll fails only with EINTR here, or for want of memory: then the loop tries again.)
        if ready < 0 { return true }
        if fds[signal].revents != 0 {
            var info = [UInt8](repeating: 0, count: 128)
            let read = Glibc.read(signals, &info, info.count)
            let number = read >= 4 ? Int32(info[0]) | Int32(info[1]) << 8 : SIGTERM
            logger.info("\(String(cString: strsignal(number))): stopping")
            return false
        }
        if fds[drm].revents != 0 { try handleFlips() }
        if fds[events].revents != 0, let input {
            for event in input.read() { try feed(.input(event)) }
        }
        if fds[udev].revents != 0, let hotplug { try hotplugged(hotplug.read()) }
        if watches.contains(where: { fds[$0].revents != 0 }) { try lookForDevice() }
        if watches.contains(where: { fds[$0].revents != 0 }), let watch = socketWatch, try watch.exists() {
            socketWatch = nil
            connectWanted = true
        }
        if fds[socket].revents != 0, let connection { try receive(connection) }
        if fds[logo].revents != 0 || wake.map({ now >= $0 }) ?? false { try takeLogo() }
        try feed(.tick)
        return true
    }

    /// The logo's raster, if its child has ended (or failed, or ran out of time): the machine
    /// draws every output again with it.
    private func takeLogo() throws {
        guard logoAwaited, painter.takeLogoIfReady() else { return }
        logoAwaited = false
        try feed(.logoReady)
    }

    private func hotplugged(_ events: HotplugMonitor.Events) throws {
        for node in events.inputAdded where input?.add(node) == true {
            logger.info("input device \(node) added")
        }
        if let device, events.drmRemoved.contains(device.node) {
            try feed(.deviceRemoved)
        } else if events.outputsChanged {
            try feed(.hotplug)
        }
    }

    /// Hands `input` to the machine and carries out what it says, and what that brings, in order.
    func feed(_ input: RendererMachine.Input) throws {
        inbox.append(input)
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            // At start, every frame the machine asks for at once is drawn at the instant it asked:
            // the outputs' first frames are all the entry's first, however long each present
            // takes. Later, each at its own instant, as before.
            let at = now
            for action in machine.handle(next, at: at) { try perform(action, at: at) }
        }
    }

    private func perform(_ action: RendererMachine.Action, at: Duration) throws {
        switch action {
        case .takeLock:
            guard lock == nil, let lockPath else { break }
            do {
                lock = try DisplayLock(path: lockPath)
            } catch {
                logger.error("\(error)")
            }
        case .releaseLock:
            lock?.release()
            lock = nil
        case .takeMaster: inbox.append(.master(gained: takeMaster()))
        case .dropMaster: device?.dropMaster()
        case .modesLost: for output in outputs { output.needsModeSet() }
        case .readOutputs: inbox.append(.outputs(readOutputs()))
        case .loadCachedFrames: inbox.append(.cachedFrames(loadCachedFrames()))
        case .draw(let id): draw(id, at: at)
        case .checkOutputs:
            let ours = outputs.filter(\.showsOwnFrame).map(\.info.connector)
            inbox.append(.outputsChecked(showingOurs: Set(ours)))
        case .releaseFramebuffers:
            kept += outputs.filter { !$0.release() }
            outputs = []
            // The heap the frames' drawing grew (cairo's and pango's) goes back to the system.
            _ = splashd_malloc_trim()
        case .storeFirstFrames(let ids): storeCachedFrames(ids)
        case .releaseHelperFrames: releaseHandedOverFrames()
        case .giveBackMemory: giveBackMemory()
        case .send(let command):
            guard let connection else { break }
            do {
                if case .error(let refused) = try connection.request(command) {
                    logger.warning("\(command) refused: \(refused.message)")
                }
            } catch {
                connection.close()
                self.connection = nil
                inbox.append(.connectionLost("\(error)"))
            }
        case .connect: connectWanted = true
        case .waitForDevice:
            logger.info("\(devicePath) went away: waiting for it to come back")
            outputs = []
            kept = []
            handOver = nil
            device?.close()
            device = nil
            let path = devicePath
            deviceWatch = (try PathWatch(devicePath), { "\(path) is back: the splash on \($0)" })
            try lookForDevice()
        case .suspendInput: input?.suspend()
        case .resumeInput: input?.resume()
        case .log(let line): logger.info("\(line)")
        case .warn(let line): logger.warning("\(line)")
        }
    }

    /// Says `words` once every output has shown a frame from now on.
    func announce(_ words: @escaping (String) -> String) {
        announcement = words
        presented = []
    }
}
