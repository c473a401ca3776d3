import Logging
import CLinuxShims
import Glibc
import SplashDraw
import SplashKMS
import SplashScene
import SplashSupport

/// What the loop does once the splash stands still, and at start: the first-frame cache read and
/// written, `splashd-kms-first-frame`'s framebuffers let go, the memory given back.
extension RendererLoop {
    /// The start's first outputs: each one's cached still view, if every output has one (else
    /// none is used: the entry plays on all of them alike).
    func loadCachedFrames() -> RendererMachine.CachedFrames {
        guard let frameCache else { return .none }
        // splashd-kms-first-frame shows the cache's pictures on every output already: the entry is
        // skipped, and the first frames are the still view drawn afresh over them, with no
        // picture read into memory (7 MB for two outputs, the peak's largest part).
        if let handOver, let device,
            outputs.allSatisfy({ handOver.framebuffers.contains(device.scanout(of: $0.info).framebuffer) }) {
            logger.info("first frames: the still view, over splashd-kms-first-frame's")
            return .onScreen
        }
        var found: [UInt32: ArraySlice<UInt8>] = [:]
        var misses: [String] = []
        for output in outputs {
            switch frameCache.load(width: output.width, height: output.height, turn: output.rotation.rawValue) {
            case .success(let pixels): found[output.info.connector] = pixels
            case .failure(let miss): misses.append("\(output.info.name) (\(output.width)x\(output.height)): \(miss)")
            }
        }
        guard misses.isEmpty else {
            logger.info("no first frame from the cache: \(misses.joined(separator: "; "))")
            return .none
        }
        cachedFrames = found
        logger.info("first frames from the cache (\(frameCache.directory))")
        return .loaded
    }

    /// The theme's still view of each output drawn afresh, and written to the cache where it
    /// differs from the file (a miss, or a font that changed outside the theme).
    func storeCachedFrames(_ ids: Set<UInt32>) {
        guard let frameCache else { return }
        var stored = 0
        for output in outputs where ids.contains(output.info.connector) {
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

    /// The helper's framebuffers that no output shows any more are removed (those still shown,
    /// on an output this renderer does not draw, stay until it does).
    func releaseHandedOverFrames() {
        guard let handOver, let device else { return }
        let shown = Set(outputs.map { device.scanout(of: $0.info).framebuffer })
        let removed = handOver.framebuffers.filter { !shown.contains($0) && device.removeFramebuffer($0) }
        let left = handOver.framebuffers.filter { !removed.contains($0) }
        self.handOver = left.isEmpty ? nil : (handOver.descriptor, left)
        if !removed.isEmpty { logger.info("splashd-kms-first-frame's \(removed.count) first frames are let go") }
    }

    /// The heap the splash's drawing grew goes back to the system, and the pages of the program's
    /// and its libraries' files that its start touched are paged out (`MemoryRelease`, as splashd
    /// does after a launch; MADV_PAGEOUT, Linux 5.4): what stays resident is what a still splash
    /// uses.
    func giveBackMemory() {
        let outcome = MemoryRelease.releaseIdleMemory(sharedToo: true)
        if let before = outcome.residentBefore, let after = outcome.residentAfter {
            func mb(_ kilobytes: Int) -> String { "\((Double(kilobytes) / 102.4).rounded() / 10) MB" }
            logger.info("the splash stands still: resident memory \(mb(before)) → \(mb(after))")
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
