import CDrm
import Glibc
public import SplashDraw
public import SplashScene

/// One output shown through two dumb buffers: drawn into the one not on screen, then flipped to
/// on the vertical blank (no tearing), so a frame is never seen half drawn.
public final class DRMOutput {
    public let device: DRMDevice
    public let info: DRMDevice.OutputInfo
    private var buffers: [DumbBuffer] = []
    private var front = 0
    /// A flip was asked for and its event has not come yet.
    public private(set) var flipPending = false
    private var shown = false

    final class DumbBuffer {
        let fd: Int32
        var handle: UInt32 = 0
        var pitch: UInt32 = 0
        var size: UInt64 = 0
        var framebuffer: UInt32 = 0
        var memory: UnsafeMutableRawPointer?
        var image: SplashImage?

        init(fd: Int32, width: Int, height: Int) throws(KMSError) {
            self.fd = fd
            guard drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size) == 0 else {
                throw KMSError("cannot make a \(width)x\(height) buffer", errno: errno)
            }
            guard drmModeAddFB(fd, UInt32(width), UInt32(height), 24, 32, pitch, handle, &framebuffer) == 0 else {
                throw KMSError("cannot add a framebuffer", errno: errno)
            }
            var offset: UInt64 = 0
            guard drmModeMapDumbBuffer(fd, handle, &offset) == 0 else { throw KMSError("cannot map a buffer", errno: errno) }
            let mapped = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(Int64(bitPattern: offset)))
            guard let mapped, mapped != MAP_FAILED else { throw KMSError("cannot map a buffer", errno: errno) }
            memory = mapped
            image = SplashImage(data: mapped, width: width, height: height, stride: Int(pitch))
        }

        /// Removes the framebuffer (RMFB): only for one not on screen, which the kernel would
        /// otherwise turn off.
        func remove() {
            if framebuffer != 0 { _ = drmModeRmFB(fd, framebuffer) }
            framebuffer = 0
        }

        deinit {
            image = nil
            if let memory { munmap(memory, Int(size)) }
            // Not removed (RMFB) here: the kernel would turn off a CRTC still scanning it out.
            // Closing the device frees what is not on screen (docs/renderer-kms.md).
            if handle != 0 { _ = drmModeDestroyDumbBuffer(fd, handle) }
        }
    }

    public init(device: DRMDevice, info: DRMDevice.OutputInfo) throws(KMSError) {
        self.device = device
        self.info = info
        for _ in 0..<2 { buffers.append(try DumbBuffer(fd: device.fd, width: info.width, height: info.height)) }
    }

    /// How far the picture is turned on this output, clockwise (the panel's orientation, or the
    /// operator's or the theme's override).
    public var rotation: SplashRotation = .none

    public var width: Int { info.width }
    public var height: Int { info.height }

    /// Draws the next frame into the buffer not on screen and shows it: the first frame by setting
    /// the mode, every later one by a page flip at the next vertical blank (its event arrives on
    /// the device: `DRMEvents.handle`). A first frame (the first, or the first after
    /// `needsModeSet`) replaces the picture without a mode set where the output already scans out
    /// the chosen mode (`FirstFrame`), and returns how it went on screen; later frames return nil.
    @discardableResult
    public func present(_ draw: (SplashImage) -> Void) throws(KMSError) -> FirstFrame? {
        let back = shown ? 1 - front : front
        draw(buffers[back].image!)
        let context = Unmanaged.passUnretained(self).toOpaque()
        if !shown {
            shown = true
            front = back
            var decision = FirstFrame.decide(now: device.scanout(of: info), chosen: DRMDevice.timing(info.mode))
            if decision == .replacePicture {
                let framebuffer = buffers[back].framebuffer
                if device.commitPicture(crtc: info.crtc, framebuffer: framebuffer, width: width, height: height, context: context)
                    || drmModePageFlip(device.fd, info.crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), context) == 0 {
                    flipPending = true
                    return decision
                }
                decision = .setMode(reason: "the driver refused to replace the picture alone: \(String(cString: strerror(errno)))")
            }
            var connector = info.connector
            var mode = info.mode
            guard drmModeSetCrtc(device.fd, info.crtc, buffers[back].framebuffer, 0, 0, &connector, 1, &mode) == 0 else {
                shown = false
                throw KMSError("cannot set \(info.name)'s mode", errno: errno)
            }
            return decision
        }
        guard drmModePageFlip(device.fd, info.crtc, buffers[back].framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), context) == 0 else {
            throw KMSError("cannot flip \(info.name)", errno: errno)
        }
        flipPending = true
        front = back
        return nil
    }

    fileprivate func flipped() { flipPending = false }

    /// The next frame sets the mode again instead of flipping: the CRTC was another process's
    /// since (the app's frame, or off once the app died).
    public func needsModeSet() {
        shown = false
        flipPending = false
    }

    /// Lets the framebuffers go once the app has the display: one no longer on screen is removed;
    /// one still on screen is closed with `CLOSEFB` where the kernel has it (it stays on screen).
    /// Returns false when one is still on screen and had to be kept (no `CLOSEFB`): the output
    /// is to be released again once something else shows there.
    public func release() -> Bool {
        let current = scannedOut
        var kept = false
        for buffer in buffers where buffer.framebuffer != 0 {
            if buffer.framebuffer == current {
                if device.closeFramebuffer(buffer.framebuffer) {
                    buffer.framebuffer = 0
                } else {
                    kept = true
                }
            } else {
                buffer.remove()
            }
        }
        return !kept
    }

    /// The framebuffer the output's CRTC scans out now (0: none, or the CRTC is off).
    private var scannedOut: UInt32 {
        guard let crtc = drmModeGetCrtc(device.fd, info.crtc) else { return 0 }
        defer { drmModeFreeCrtc(crtc) }
        return crtc.pointee.buffer_id
    }

    /// Whether the output still scans out one of this renderer's frames (false once another
    /// process, the app, has set its own framebuffer on the CRTC, or turned it off).
    public var showsOwnFrame: Bool {
        let current = scannedOut
        return current != 0 && buffers.contains { $0.framebuffer == current }
    }
}

extension DRMOutput: CustomStringConvertible {
    /// Its name, size and turn, as the log says them: `Virtual-1 (1280x800, turned 90°)`.
    public var description: String {
        "\(info.name) (\(width)x\(height)\(rotation == .none ? "" : ", turned \(rotation.rawValue)°"))"
    }
}

/// The device's events: page flips done.
public enum DRMEvents {
    /// Waits at most `timeoutMs` (−1: no limit) for the device's events and handles them.
    /// Returns false when none came in time.
    @discardableResult
    public static func handle(_ device: DRMDevice, timeoutMs: Int32) -> Bool {
        var pfd = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, timeoutMs) > 0 else { return false }
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, _, _, data in
            guard let data else { return }
            Unmanaged<DRMOutput>.fromOpaque(data).takeUnretainedValue().flipped()
        }
        _ = drmHandleEvent(device.fd, &context)
        return true
    }
}
