import CLinuxShims
import Glibc
import Logging
import SplashClient
import SplashCore
import SplashDraw
import SplashKMS
import SplashSupport
import SplashScene

/// The renderer's one loop: it waits (poll(2)) on splashd's socket, the DRM device, the input
/// devices and udev, feeds what happened to the `RendererMachine`, and carries out its actions
/// with the device, the painter, the lock and the socket. Every decision is the machine's.
final class RendererLoop {
    private var machine: RendererMachine
    private let painter: SplashPainter
    private let devicePath: String
    /// `--rotate` or the theme's `rotate`: every output turned so, whatever its panel says.
    private let rotation: SplashRotation?
    /// `--output`: only these outputs (none named: every connected one).
    private let names: Set<String>
    private let lockPath: String?
    private var lock: DisplayLock?
    private let logger: Logger

    private var device: DRMDevice?
    /// The outputs drawn on, by connector, in the device's order.
    private var outputs: [DRMOutput] = []
    /// Outputs let go that still show a frame of ours (a kernel without `CLOSEFB`): released
    /// once something else shows there.
    private var kept: [DRMOutput] = []
    private var input: InputDevices?
    private var hotplug: HotplugMonitor?
    private var connection: SplashConnection?
    /// States read on the current connection (a connection that brought some was a good one: the
    /// next reconnect is quick again).
    private var statesReceived = 0
    /// Master was just gained: the outputs' next frames set their modes again.
    private var masterRegained = false
    /// Said once every output has shown a frame (the first frame, the device back, the splash
    /// back): its words, given the outputs.
    private var announcement: ((String) -> String)?
    private var presented: Set<UInt32> = []

    /// The splash was (re)drawn from its first frame: once nothing moves, the memory its start
    /// and its entry used is given back (`giveBackMemory`).
    private var giveBackPending = true
    /// Every output showed its first frame at start.
    private var startFramesShown = false
    /// `settle` runs: no splashd yet, and the still view is what shows until it answers.
    private var settling = false

    /// The first-frame cache (`--cache-dir`), if any.
    private let frameCache: FrameCacheStore?
    /// The start's first outputs are not read yet (only they may show a cached frame).
    private var startFrames = true
    /// Cached still views to present as the outputs' first frames, by connector.
    private var cachedFrames: [UInt32: ArraySlice<UInt8>] = [:]
    /// Outputs whose cached frame is to be written (a miss), or checked against a fresh drawing (a
    /// hit: a font that changed outside the theme), once the splash stands still.
    private var framesToStore: Set<UInt32> = []

    /// What `splashd-kms-first-frame` handed over: the open device, with these framebuffers on
    /// screen (its cached pictures). They are removed once the splash stands still on frames of
    /// this renderer's (`releaseHandedOverFrames`).
    private var handOver: (descriptor: Int32, framebuffers: [UInt32])?

    private let origin = ContinuousClock.now
    private var inbox: [RendererMachine.Input] = []

    init(machine: RendererMachine, painter: SplashPainter, device: String, rotation: SplashRotation?, names: [String],
         lockPath: String?, lock: DisplayLock?, frameCache: FrameCacheStore?,
         handOver: (descriptor: Int32, framebuffers: [UInt32])? = nil, logger: Logger) {
        self.machine = machine
        self.handOver = handOver
        self.frameCache = frameCache
        self.painter = painter
        self.devicePath = device
        self.rotation = rotation
        self.names = Set(names)
        self.lockPath = lockPath
        self.lock = lock
        self.logger = logger
    }

    private var now: Duration { ContinuousClock.now - origin }

    /// Opens the device (waiting for it), draws the first frame, connects to splashd (waiting for
    /// its socket) and follows it for as long as it runs.
    func run(socket path: String) throws {
        // Early in boot the GPU's driver may not be loaded yet: wait for its device.
        let drm = try adoptHandOver() ?? DeviceWait.open(devicePath) { self.logger.info("waiting for \(self.devicePath) to appear") }
        device = drm
        announce { "first frame on \($0) \(Self.startReport())" }
        // The first frame at once: the theme's background, before splashd answers, and before
        // what it does not need: the input devices (libinput reads every quirks file and asks
        // udev of each device), udev's monitor, fontconfig, pango and the logo's raster.
        // With splashd-kms-first-frame's pictures on screen nothing waits for this renderer's
        // first frames: they are the still view drawn afresh, the text stack set up first.
        if handOver != nil { preparePainter() }
        try feed(.deviceOpened(master: drm.isMaster, closesFramebuffers: drm.hasCloseFramebuffer))
        hotplug = HotplugMonitor()
        input = InputDevices(width: Double(outputs.first?.width ?? 1), height: Double(outputs.first?.height ?? 1))
        if machine.stage == .away { input?.suspend() }
        preparePainter()
        // The first frames' flips may have come meanwhile (that set-up is long on a slow device):
        // the machine hears of them before anything else, not as flips lost.
        try handleFlips()
        // splashd may start after the renderer (this one starts with the earliest boot services):
        // wait for its socket, as for the device.
        var pause = Duration.milliseconds(100)
        // No splashd yet (the renderer started in the initramfs, or before splashd's socket
        // exists): the entry plays out, so the wait shows the theme's still view (logo, name,
        // tagline), not the background alone.
        if access(path, F_OK) != 0 { try settle() }
        while true {
            try DeviceWait.until(exists: path) { self.logger.info("waiting for \(path) to appear") }
            do {
                try follow(path)
            } catch let error as ClientError {
                // splashd went away (a restart), or sent what this renderer cannot read (a line
                // over the protocol's bound): the last frame stays, and the renderer connects
                // again, sooner after a connection that lasted.
                connection?.close()
                connection = nil
                if statesReceived > 0 { pause = .milliseconds(100) }
                statesReceived = 0
                logger.warning("lost splashd: \(error); connecting again in \(pause)")
                _ = poll(nil, 0, Int32(pause / .milliseconds(1)))
                pause = min(pause * 2, .seconds(2))
            }
        }
    }

    /// The device `splashd-kms-first-frame` opened, with its first frames on screen; nil when it
    /// handed nothing over (or what it handed is not a mode-setting device: then it is closed, and
    /// its frames go with it).
    private func adoptHandOver() -> DRMDevice? {
        guard let handOver else { return nil }
        do {
            let drm = try DRMDevice(adopting: handOver.descriptor, path: devicePath)
            logger.info("\(devicePath) from splashd-kms-first-frame, with its first frames on \(handOver.framebuffers.count) outputs")
            return drm
        } catch {
            logger.warning("what splashd-kms-first-frame handed over is not \(devicePath): \(error)")
            self.handOver = nil
            return nil
        }
    }

    /// The helper's framebuffers that no output shows any more are removed (those still shown,
    /// on an output this renderer does not draw, stay until it does).
    private func releaseHandedOverFrames() {
        guard let handOver, let device else { return }
        let shown = Set(outputs.map { device.scanout(of: $0.info).framebuffer })
        let removed = handOver.framebuffers.filter { !shown.contains($0) && device.removeFramebuffer($0) }
        let left = handOver.framebuffers.filter { !removed.contains($0) }
        self.handOver = left.isEmpty ? nil : (handOver.descriptor, left)
        if !removed.isEmpty { logger.info("splashd-kms-first-frame's \(removed.count) first frames are let go") }
    }

    /// The painter's deferred set-up (once: a second call does nothing).
    private func preparePainter() {
        do {
            try painter.prepare()
        } catch {
            logger.warning("\(error); the texts are drawn in the theme's font or sans-serif")
        }
    }

    /// Draws until nothing moves (the entry animation, 700 ms, and its flips), for at most
    /// `settleLimit`: only the device's events and time wake it.
    private func settle() throws {
        settling = true
        defer { settling = false }
        let end = now + Self.settleLimit
        while machine.stage == .showing, let wake = machine.nextWake(after: now), now < end {
            let timeout = Int32(max(0, ((min(wake, end) - now) / .milliseconds(1)).rounded(.up)))
            var fds = [pollfd(fd: device?.fd ?? -1, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 1, timeout) > 0 { try handleFlips() }
            try feed(.tick)
        }
    }

    /// The longest `settle` draws while no splashd answers.
    static let settleLimit: Duration = .seconds(3)

    /// Connects, subscribes, and turns until the connection fails.
    private func follow(_ path: String) throws {
        let connection = try connect(path)
        self.connection = connection
        // Without the 100 ms ticks splashd publishes while loading (they move only the clocks and
        // a time-tracked progress), unless the theme shows progress: the renderer then sleeps
        // until something it draws changes.
        switch try connection.request(painter.theme.showProgress ? .subscribe : .subscribeWithoutTicks) {
        case .ok: break
        case .error(let error): throw ClientError.rejected(error)
        default: throw ClientError.invalidMessage("unexpected reply to subscribe")
        }
        while true { try turn(connection) }
    }

    /// Connects to splashd, however long it takes to answer: its socket is there early (systemd
    /// listens on it), and the daemon behind it may take longer than a connection's 5 s to start
    /// on a slow device (20 s in the emulated VM under systemd). The renderer keeps its frame and
    /// tries again, rather than exit and black the display while systemd restarts it.
    private func connect(_ path: String) throws(ClientError) -> SplashConnection {
        while true {
            do {
                return try SplashConnection(path: path)
            } catch .timedOut {
                logger.info("splashd has not answered on \(path) yet: still waiting")
            }
        }
    }

    /// One wait and what it brought.
    private func turn(_ connection: SplashConnection) throws {
        if connection.hasBufferedInput {
            try receive(connection)
            return
        }
        let wake = machine.nextWake(after: now)
        let timeout: Int32 = wake.map { Int32(max(0, ((($0 - now) / .milliseconds(1)).rounded(.up)))) } ?? -1
        var fds = [pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: device?.fd ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: machine.stage == .away ? -1 : input?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: hotplug?.descriptor ?? -1, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, nfds_t(fds.count), timeout) > 0 else {
            try feed(.tick)
            return
        }
        if fds[1].revents != 0 { try handleFlips() }
        if fds[2].revents != 0, let input {
            for event in input.read() { try feed(.input(event)) }
        }
        if fds[3].revents != 0, let hotplug {
            let events = hotplug.read()
            for node in events.inputAdded where input?.add(node) == true {
                logger.info("input device \(node) added")
            }
            if let device, events.drmRemoved.contains(device.node) {
                try feed(.deviceRemoved)
            } else if events.outputsChanged {
                try feed(.hotplug)
            }
        }
        if fds[0].revents != 0 { try receive(connection) }
        try feed(.tick)
    }

    private func receive(_ connection: SplashConnection) throws {
        // The newest state only: a flood (10,000 states a second) is read, not drawn state by
        // state, and the display shows the latest.
        guard let state = try connection.latestState() else { return }
        // The first state splashd sent is what the splash shows from here: it is given back once
        // that stands still (not before: the first state's frame would fault it all in again).
        if statesReceived == 0 { giveBackPending = true }
        statesReceived += 1
        try feed(.state(state))
    }

    /// Hands `input` to the machine and carries out what it says, and what that brings, in order.
    private func feed(_ input: RendererMachine.Input) throws {
        inbox.append(input)
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            // At start, every frame the machine asks for at once is drawn at the instant it asked:
            // the outputs' first frames are all the entry's first, however long each present
            // takes. Later, each at its own instant, as before.
            let at = now
            for action in machine.handle(next, at: at) { try perform(action, at: at) }
        }
        if giveBackPending, statesReceived > 0 || settling, machine.stage == .showing || machine.stage == .handingOff,
            !outputs.isEmpty, machine.nextWake(after: now) == nil {
            giveBackPending = false
            storeCachedFrames()
            releaseHandedOverFrames()
            giveBackMemory()
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
        case .takeMaster:
            inbox.append(.master(gained: takeMaster()))
        case .dropMaster:
            device?.dropMaster()
        case .readOutputs:
            let read = readOutputs()
            if startFrames, !read.isEmpty {
                startFrames = false
                loadCachedFrames()
            }
            inbox.append(.outputs(read))
        case .draw(let id):
            draw(id, at: at)
        case .checkOutputs:
            let ours = outputs.filter(\.showsOwnFrame).map(\.info.connector)
            inbox.append(.outputsChecked(showingOurs: Set(ours)))
        case .releaseFramebuffers:
            kept += outputs.filter { !$0.release() }
            outputs = []
            // The heap the frames' drawing grew (cairo's and pango's) goes back to the system.
            _ = splashd_malloc_trim()
        case .send(let command):
            guard let connection else { break }
            if case .error(let refused) = try connection.request(command) {
                logger.warning("\(command) refused: \(refused.message)")
            }
        case .waitForDevice:
            waitForDevice()
        case .suspendInput:
            input?.suspend()
        case .resumeInput:
            input?.resume()
        case .log(let line):
            logger.info("\(line)")
        }
    }

    /// Master, once no other process has it. A descriptor that was never master may not take it
    /// without CAP_SYS_ADMIN: then the device is opened anew, and a fresh descriptor of a device
    /// with no master is its master.
    private func takeMaster() -> Bool {
        guard let device else { return false }
        let attempt = device.setMaster()
        if attempt.gained {
            masterRegained = true
            announce { "the splash is back on \($0)" }
            return true
        }
        guard attempt.error == EACCES, let fresh = try? DRMDevice(path: devicePath), fresh.isMaster else { return false }
        // The old descriptor's buffers go with it (nothing of ours is on screen: the app had it).
        outputs = []
        kept = []
        handOver = nil
        device.close()
        self.device = fresh
        masterRegained = true
        announce { "the splash is back on \($0)" }
        return true
    }

    private func readOutputs() -> [RendererMachine.Output] {
        guard let device else { return [] }
        let infos: [DRMDevice.OutputInfo]
        do {
            infos = try device.connectedOutputs(keeping: outputs.map(\.info)).filter { names.isEmpty || names.contains($0.name) }
        } catch {
            logger.error("\(error)")
            return outputs.map(Self.machineOutput)
        }
        let connected = Set(infos.map(\.connector))
        for gone in outputs where !connected.contains(gone.info.connector) {
            waitForFlip(of: gone)
            if !gone.release() { kept.append(gone) }
        }
        var next: [DRMOutput] = []
        for info in infos {
            if let existing = outputs.first(where: { $0.info.connector == info.connector }) {
                if masterRegained { existing.needsModeSet() }
                next.append(existing)
                continue
            }
            do {
                let output = try DRMOutput(device: device, info: info)
                output.rotation = rotation ?? info.panelRotation ?? .none
                next.append(output)
            } catch {
                logger.error("\(info.name): \(error)")
            }
        }
        masterRegained = false
        outputs = next
        if next.isEmpty, !names.isEmpty {
            logger.info("none of \(names.sorted().joined(separator: ", ")) is connected yet")
        }
        if let first = next.first {
            input?.width = Double(first.width)
            input?.height = Double(first.height)
        }
        return next.map(Self.machineOutput)
    }

    /// The device's events that came (flips done): the machine is told of each output's.
    private func handleFlips() throws {
        guard let device else { return }
        DRMEvents.handle(device, timeoutMs: 0)
        for output in outputs where machine.flipPending(output.info.connector) && !output.flipPending {
            try feed(.flipped(output.info.connector))
        }
    }

    /// Handles the device's events until `output` has no flip pending (at most 2 s).
    private func waitForFlip(of output: DRMOutput) {
        guard let device else { return }
        let deadline = ContinuousClock.now + RendererMachine.flipLimit
        while output.flipPending, ContinuousClock.now < deadline { DRMEvents.handle(device, timeoutMs: 100) }
    }

    private static func machineOutput(_ output: DRMOutput) -> RendererMachine.Output {
        .init(id: output.info.connector, name: output.info.name, width: output.width, height: output.height, rotation: output.rotation,
              widthMM: output.info.widthMM, heightMM: output.info.heightMM)
    }

    private func draw(_ id: UInt32, at asked: Duration) {
        guard let output = outputs.first(where: { $0.info.connector == id }) else { return }
        let at = startFramesShown ? now : asked
        let cached = cachedFrames.removeValue(forKey: id)
        do {
            let first = try output.present { image in
                if let cached {
                    image.replacePixels(with: cached)
                } else {
                    painter.draw(machine.view, at: machine.times(at: at), into: image, rotation: output.rotation, focus: machine.focusRing)
                }
            }
            if let first {
                switch first {
                case .replacePicture: logger.info("\(output.info.name): the first frame replaced the picture, with no mode set")
                case .setMode(let reason): logger.info("\(output.info.name): the mode is set (\(reason))")
                }
            }
            inbox.append(.presented(id, flipPending: output.flipPending))
        } catch {
            logger.error("\(error)")
            inbox.append(.presentFailed(id))
            return
        }
        // Frames kept on screen for want of CLOSEFB are let go once ours replaced them.
        if !kept.isEmpty { kept.removeAll { !$0.showsOwnFrame && $0.release() } }
        presented.insert(id)
        if let announcement, outputs.allSatisfy({ presented.contains($0.info.connector) }) {
            logger.info("\(announcement(outputs.map(\.description).joined(separator: ", ")))")
            self.announcement = nil
            startFramesShown = true
        }
    }

    /// Says `words` once every output has shown a frame from now on.
    private func announce(_ words: @escaping (String) -> String) {
        announcement = words
        presented = []
        giveBackPending = true
    }

    /// The start's first outputs: each one's cached still view, if every output has one (else
    /// none is used: the entry plays on all of them alike). The machine is told, so the entry's
    /// clock starts at its end.
    private func loadCachedFrames() {
        guard let frameCache else { return }
        // splashd-kms-first-frame shows the cache's pictures on every output already: the entry is
        // skipped, and the first frames are the still view drawn afresh over them, with no
        // picture read into memory (7 MB for two outputs, the peak's largest part).
        if let handOver, let device,
            outputs.allSatisfy({ handOver.framebuffers.contains(device.scanout(of: $0.info).framebuffer) }) {
            framesToStore = Set(outputs.map(\.info.connector))
            inbox.append(.entryCached)
            logger.info("first frames: the still view, over splashd-kms-first-frame's")
            return
        }
        var found: [UInt32: ArraySlice<UInt8>] = [:]
        var misses: [String] = []
        for output in outputs {
            switch frameCache.load(width: output.width, height: output.height, turn: output.rotation.rawValue) {
            case .success(let pixels): found[output.info.connector] = pixels
            case .failure(let miss): misses.append("\(output.info.name) (\(output.width)x\(output.height)): \(miss)")
            }
        }
        framesToStore = Set(outputs.map(\.info.connector))
        if misses.isEmpty {
            cachedFrames = found
            inbox.append(.entryCached)
            logger.info("first frames from the cache (\(frameCache.directory))")
        } else {
            logger.info("no first frame from the cache: \(misses.joined(separator: "; "))")
        }
    }

    /// Once the splash stands still: the theme's still view of each output drawn afresh, and
    /// written to the cache where it differs from the file (a miss, or a font that changed
    /// outside the theme).
    private func storeCachedFrames() {
        guard let frameCache, !framesToStore.isEmpty else { return }
        defer { framesToStore = [] }
        var stored = 0
        for output in outputs where framesToStore.contains(output.info.connector) {
            let image = SplashImage(width: output.width, height: output.height)
            painter.draw(SplashView(), at: .init(sinceShown: 60_000), into: image, rotation: output.rotation)
            do {
                if try frameCache.store(image, turn: output.rotation.rawValue) {
                    logger.info("\(output.info.name): its first frame is cached for the next start")
                }
                stored += 1
            } catch {
                logger.warning("\(error); the next start draws its first frame without the cache")
            }
        }
        // The index splashd-kms-first-frame reads: every output's file, once all of them are there.
        guard stored == outputs.count else { return }
        do {
            try frameCache.storeIndex(outputs.map { .init(name: $0.info.name, width: $0.width, height: $0.height, turn: $0.rotation.rawValue) })
        } catch {
            logger.warning("\(error); the next start's first frame waits for the renderer")
        }
    }

    /// The splash stands still: the heap its drawing grew goes back to the system, and the pages
    /// of the program's and its libraries' files that its start touched are paged out
    /// (`MemoryRelease`, as splashd does after a launch; MADV_PAGEOUT, Linux 5.4): what stays
    /// resident is what a still splash uses.
    private func giveBackMemory() {
        let outcome = MemoryRelease.releaseIdleMemory(sharedToo: true)
        if let before = outcome.residentBefore, let after = outcome.residentAfter {
            func mb(_ kilobytes: Int) -> String { "\((Double(kilobytes) / 102.4).rounded() / 10) MB" }
            logger.info("the splash stands still: resident memory \(mb(before)) → \(mb(after))")
        }
    }

    /// The device went away (its driver unbound; early in boot, a firmware framebuffer such as
    /// simpledrm replaced by the real GPU's driver, which takes the same node): the outputs are
    /// let go, and the renderer waits for the node to come back (inotify, as at start).
    private func waitForDevice() {
        logger.info("\(devicePath) went away: waiting for it to come back")
        outputs = []
        kept = []
        handOver = nil
        device?.close()
        device = nil
        do {
            let drm = try DeviceWait.open(devicePath)
            device = drm
            let path = devicePath
            announce { "\(path) is back: the splash on \($0)" }
            inbox.append(.deviceOpened(master: drm.isMaster, closesFramebuffers: drm.hasCloseFramebuffer))
        } catch {
            logger.error("\(error)")
        }
    }

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
}
