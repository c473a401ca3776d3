import Logging
import Glibc
import SplashDraw
import SplashKMS
import SplashScene

/// What the loop does with the device: master, the outputs, the frames and their flips.
extension RendererLoop {
    /// The device's node, if it came: opened, and the machine told.
    func lookForDevice() throws {
        guard let (watch, words) = deviceWatch, try watch.exists() else { return }
        deviceWatch = nil
        do {
            let drm = try DeviceWait.open(devicePath)
            device = drm
            announce(words)
            // Told with the next input fed (the wait's turn ends with a tick).
            inbox.append(.deviceOpened(master: drm.isMaster, closesFramebuffers: drm.hasCloseFramebuffer))
        } catch {
            logger.error("\(error)")
        }
    }

    /// The device at start: the machine told, the first frame drawn.
    func deviceCame(_ drm: DRMDevice, words: @escaping (String) -> String) throws {
        device = drm
        announce(words)
        try feed(.deviceOpened(master: drm.isMaster, closesFramebuffers: drm.hasCloseFramebuffer))
    }

    /// The device `splashd-kms-first-frame` opened, with its first frames on screen; nil when it
    /// handed nothing over (or what it handed is not a mode-setting device: then it is closed, and
    /// its frames go with it).
    func adoptHandOver() -> DRMDevice? {
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

    /// Master, once no other process has it. A descriptor that was never master may not take it
    /// without CAP_SYS_ADMIN: then the device is opened anew, and a fresh descriptor of a device
    /// with no master is its master.
    func takeMaster() -> Bool {
        guard let device else { return false }
        let attempt = device.setMaster()
        if attempt.gained {
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
        announce { "the splash is back on \($0)" }
        return true
    }

    func readOutputs() -> [RendererMachine.Output] {
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
    func handleFlips() throws {
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

    static func machineOutput(_ output: DRMOutput) -> RendererMachine.Output {
        .init(id: output.info.connector, name: output.info.name, width: output.width, height: output.height, rotation: output.rotation,
              widthMM: output.info.widthMM, heightMM: output.info.heightMM)
    }

    func draw(_ id: UInt32, at asked: Duration) {
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
}
