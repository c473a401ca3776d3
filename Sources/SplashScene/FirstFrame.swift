/// How an output's first frame goes on screen: by replacing the picture (no mode set: a real panel
/// neither blanks nor resyncs, and the firmware's or the console's picture is replaced by the
/// splash's at the next vertical blank), or by a full mode set. Pure: the renderer reads what the
/// output scans out now and asks (design §16).
public enum FirstFrame: Sendable, Equatable {
    /// Only the picture changes: an atomic commit of the primary plane without
    /// `DRM_MODE_ATOMIC_ALLOW_MODESET` where the driver has atomic mode setting, else a page flip.
    /// Either fails rather than set the mode, and the renderer then sets it.
    case replacePicture
    /// The mode is set (`SETCRTC`), for `reason`.
    case setMode(reason: String)

    /// A display mode's timings: what makes two modes the same signal on the wire (not the name,
    /// the type or the preferred flag).
    public struct Timing: Sendable, Equatable, CustomStringConvertible {
        public var clock: UInt32
        public var hdisplay, hsyncStart, hsyncEnd, htotal: UInt16
        public var hskew: UInt16 = 0
        public var vdisplay, vsyncStart, vsyncEnd, vtotal: UInt16
        public var vscan: UInt16 = 0
        public var flags: UInt32 = 0

        public init(clock: UInt32, hdisplay: UInt16, hsyncStart: UInt16, hsyncEnd: UInt16, htotal: UInt16, hskew: UInt16 = 0,
                    vdisplay: UInt16, vsyncStart: UInt16, vsyncEnd: UInt16, vtotal: UInt16, vscan: UInt16 = 0, flags: UInt32 = 0) {
            self.clock = clock
            self.hdisplay = hdisplay
            self.hsyncStart = hsyncStart
            self.hsyncEnd = hsyncEnd
            self.htotal = htotal
            self.hskew = hskew
            self.vdisplay = vdisplay
            self.vsyncStart = vsyncStart
            self.vsyncEnd = vsyncEnd
            self.vtotal = vtotal
            self.vscan = vscan
            self.flags = flags
        }

        /// `1280x800@60.0`: size and refresh, as the log says it.
        public var description: String {
            let refresh = htotal > 0 && vtotal > 0 ? Double(clock) * 1000 / (Double(htotal) * Double(vtotal)) : 0
            return "\(hdisplay)x\(vdisplay)@\((refresh * 10).rounded() / 10)"
        }
    }

    /// What the output's CRTC does now, as the kernel says it.
    public struct Scanout: Sendable, Equatable {
        /// Its mode, nil when the CRTC is off.
        public var mode: Timing?
        /// The framebuffer it scans out (0: none).
        public var framebuffer: UInt32
        /// Whether this CRTC drives the output's connector now (its encoder is on this CRTC).
        public var drivesConnector: Bool

        public init(mode: Timing?, framebuffer: UInt32, drivesConnector: Bool) {
            self.mode = mode
            self.framebuffer = framebuffer
            self.drivesConnector = drivesConnector
        }
    }

    /// The first frame's way onto an output whose CRTC scans out `now`, the renderer having
    /// chosen `mode`: the picture alone is replaced when the CRTC already drives this connector
    /// at that very mode, with a framebuffer on it; else the mode is set.
    public static func decide(now: Scanout, chosen mode: Timing) -> FirstFrame {
        guard let current = now.mode, now.framebuffer != 0 else { return .setMode(reason: "the output is off") }
        guard now.drivesConnector else { return .setMode(reason: "its CRTC drives another output") }
        guard current == mode else { return .setMode(reason: "it scans out \(current), not \(mode)") }
        return .replacePicture
    }
}
