import CDrm
import Glibc
import SplashDraw
public import SplashScene

/// Why the display could not be used.
public struct KMSError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The system's error number, when a call failed.
    public var code: Int32?

    init(_ what: String, errno code: Int32? = nil) {
        description = code.map { "\(what): \(String(cString: strerror($0)))" } ?? what
        self.code = code
    }
}

/// A DRM device (`/dev/dri/cardN`) opened for mode setting: the first opener of a card is its
/// DRM master, which may set modes and flip pages.
public final class DRMDevice {
    public let path: String
    /// The device node itself (`path` with its links resolved: `/dev/dri/by-path/…-card` is
    /// `/dev/dri/card0`), as udev names it in its events.
    public let node: String
    public private(set) var fd: Int32

    public convenience init(path: String) throws(KMSError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw KMSError("cannot open \(path)", errno: errno) }
        do {
            try self.init(adopting: fd, path: path)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// The device `path` open as `fd`, which this object then owns (closes): the one
    /// `splashd-kms-first-frame` opened and handed over across exec. It is made close-on-exec and
    /// non-blocking, as `init(path:)` opens it. A descriptor that is not a mode-setting device is
    /// refused and left as it was, open.
    public init(adopting fd: Int32, path: String) throws(KMSError) {
        var capability: UInt64 = 0
        guard drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &capability) == 0, capability != 0 else {
            throw KMSError("\(path) has no dumb buffers (not a mode-setting device)")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.path = path
        self.fd = fd
        if let resolved = realpath(path, nil) {
            node = String(cString: resolved)
            free(resolved)
        } else {
            node = path
        }
    }

    deinit { close() }

    /// Closes the device (at once, rather than when the last reference goes): a device that went
    /// away keeps its number while a descriptor of it is open, and the one that replaces it
    /// would get another (card1 for card0).
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Whether this descriptor is the device's DRM master (false when another process, the app,
    /// already had it when this one was opened).
    public var isMaster: Bool { drmIsMaster(fd) != 0 }

    /// Gives DRM master up, so the app may take the display (the last frame stays scanned out).
    public func dropMaster() { _ = drmDropMaster(fd) }

    /// Becomes DRM master again: true at once when no other process is (the app died, or was
    /// killed); false while one is. Without `CAP_SYS_ADMIN` (the shipped unit has none) the kernel
    /// allows it only to a descriptor that was master before (Linux 5.10's `was_master`): a
    /// renderer that opened the device while the app had it gets `EACCES`, and opens it anew.
    public func setMaster() -> (gained: Bool, error: Int32) {
        drmSetMaster(fd) == 0 ? (true, 0) : (false, errno)
    }

    /// `DRM_IOCTL_MODE_CLOSEFB` (Linux 6.8): `DRM_IOWR(0xD0, struct drm_mode_closefb)`, a
    /// framebuffer's id and 4 bytes of padding. Debian 12's libdrm does not know it yet.
    static let closeFramebufferRequest: UInt = (3 << 30) | (8 << 16) | (UInt(UInt8(ascii: "d")) << 8) | 0xD0

    /// Whether the kernel has `CLOSEFB`: asked with framebuffer 0, which never exists, a kernel
    /// that has it answers ENOENT; one that does not, EINVAL (an ioctl it does not know).
    public private(set) lazy var hasCloseFramebuffer: Bool = {
        var request: (UInt32, UInt32) = (0, 0)
        return ioctl(fd, Self.closeFramebufferRequest, &request) != 0 && errno == ENOENT
    }()

    /// Closes a framebuffer without taking it off the screen (`CLOSEFB`): an output that shows it
    /// keeps showing it until someone sets another. False where the kernel lacks it, or refused.
    public func closeFramebuffer(_ id: UInt32) -> Bool {
        guard hasCloseFramebuffer else { return false }
        var request: (UInt32, UInt32) = (id, 0)
        return ioctl(fd, Self.closeFramebufferRequest, &request) == 0
    }

    /// Removes a framebuffer of this descriptor's (`RMFB`): one on screen is taken off it, so only
    /// one that nothing shows is removed this way.
    public func removeFramebuffer(_ id: UInt32) -> Bool { drmModeRmFB(fd, id) == 0 }

    /// Whether the driver has atomic mode setting (asked once; the client capability stays set).
    public private(set) lazy var hasAtomic: Bool = drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0

    /// What `info`'s CRTC scans out now: its mode, its framebuffer, and whether it drives the
    /// output's connector (for `FirstFrame.decide`).
    public func scanout(of info: OutputInfo) -> FirstFrame.Scanout {
        guard let crtc = drmModeGetCrtc(fd, info.crtc) else { return .init(mode: nil, framebuffer: 0, drivesConnector: false) }
        defer { drmModeFreeCrtc(crtc) }
        var drives = false
        if let connector = drmModeGetConnector(fd, info.connector) {
            defer { drmModeFreeConnector(connector) }
            if connector.pointee.encoder_id != 0, let encoder = drmModeGetEncoder(fd, connector.pointee.encoder_id) {
                drives = encoder.pointee.crtc_id == info.crtc
                drmModeFreeEncoder(encoder)
            }
        }
        let c = crtc.pointee
        return .init(mode: c.mode_valid != 0 ? Self.timing(c.mode) : nil, framebuffer: c.buffer_id, drivesConnector: drives)
    }

    static func timing(_ m: drmModeModeInfo) -> FirstFrame.Timing {
        .init(clock: m.clock, hdisplay: m.hdisplay, hsyncStart: m.hsync_start, hsyncEnd: m.hsync_end, htotal: m.htotal, hskew: m.hskew,
              vdisplay: m.vdisplay, vsyncStart: m.vsync_start, vsyncEnd: m.vsync_end, vtotal: m.vtotal, vscan: m.vscan, flags: m.flags)
    }

    /// Shows `framebuffer` (`width` × `height`) on `crtc`'s primary plane by an atomic commit that
    /// may not set the mode (no `ALLOW_MODESET`: the kernel refuses what would need one), with a
    /// page-flip event for `context`. False where the driver has no atomic mode setting, or
    /// refused.
    public func commitPicture(crtc: UInt32, framebuffer: UInt32, width: Int, height: Int, context: UnsafeMutableRawPointer) -> Bool {
        guard hasAtomic, let plane = primaryPlane(of: crtc), let request = drmModeAtomicAlloc() else { return false }
        defer { drmModeAtomicFree(request) }
        let values: [(String, UInt64)] = [
            ("FB_ID", UInt64(framebuffer)), ("CRTC_ID", UInt64(crtc)),
            ("SRC_X", 0), ("SRC_Y", 0), ("SRC_W", UInt64(width) << 16), ("SRC_H", UInt64(height) << 16),
            ("CRTC_X", 0), ("CRTC_Y", 0), ("CRTC_W", UInt64(width)), ("CRTC_H", UInt64(height)),
        ]
        for (name, value) in values {
            guard let property = plane.properties[name], drmModeAtomicAddProperty(request, plane.id, property, value) >= 0 else { return false }
        }
        return drmModeAtomicCommit(fd, request, UInt32(DRM_MODE_PAGE_FLIP_EVENT | DRM_MODE_ATOMIC_NONBLOCK), context) == 0
    }

    /// The primary plane that can show on `crtc`, and its properties' ids by name.
    private func primaryPlane(of crtc: UInt32) -> (id: UInt32, properties: [String: UInt32])? {
        guard let resources = drmModeGetResources(fd) else { return nil }
        let crtcs = (0..<Int(resources.pointee.count_crtcs)).map { resources.pointee.crtcs[$0] }
        drmModeFreeResources(resources)
        guard let index = crtcs.firstIndex(of: crtc), let planes = drmModeGetPlaneResources(fd) else { return nil }
        defer { drmModeFreePlaneResources(planes) }
        for p in 0..<Int(planes.pointee.count_planes) {
            guard let plane = drmModeGetPlane(fd, planes.pointee.planes[p]) else { continue }
            let id = plane.pointee.plane_id
            let possible = plane.pointee.possible_crtcs & (1 << UInt32(index)) != 0
            drmModeFreePlane(plane)
            guard possible, let properties = drmModeObjectGetProperties(fd, id, UInt32(DRM_MODE_OBJECT_PLANE)) else { continue }
            defer { drmModeFreeObjectProperties(properties) }
            var byName: [String: UInt32] = [:]
            var primary = false
            for i in 0..<Int(properties.pointee.count_props) {
                guard let property = drmModeGetProperty(fd, properties.pointee.props[i]) else { continue }
                let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                byName[name] = property.pointee.prop_id
                if name == "type" { primary = properties.pointee.prop_values[i] == UInt64(DRM_PLANE_TYPE_PRIMARY) }
                drmModeFreeProperty(property)
            }
            if primary { return (id, byName) }
        }
        return nil
    }

    /// What one connected output is: its name (`Virtual-1`, `HDMI-A-1`), the connector, the CRTC
    /// that will drive it, and its preferred mode.
    public struct OutputInfo: Sendable {
        public var name: String
        public var connector: UInt32
        public var crtc: UInt32
        /// How the panel is mounted (the connector's `panel orientation` property), as the turn
        /// that makes the picture upright on it; nil when the connector does not say.
        public var panelRotation: SplashRotation?
        /// The panel's physical size in millimetres (0 when the connector does not say).
        public var widthMM: Int = 0
        public var heightMM: Int = 0
        var mode: drmModeModeInfo
        public var width: Int { Int(mode.hdisplay) }
        public var height: Int { Int(mode.vdisplay) }
    }

    /// The connected outputs, each with a CRTC of its own and its preferred mode (else its first).
    /// Outputs in `keeping` that are still connected are returned as they are (their CRTCs stay
    /// theirs); a new one gets a CRTC none of them has.
    public func connectedOutputs(keeping existing: [OutputInfo] = []) throws(KMSError) -> [OutputInfo] {
        guard let resources = drmModeGetResources(fd) else { throw KMSError("cannot read \(path)'s resources", errno: errno) }
        defer { drmModeFreeResources(resources) }
        let crtcs = (0..<Int(resources.pointee.count_crtcs)).map { resources.pointee.crtcs[$0] }
        var taken = Set(existing.map(\.crtc))
        var outputs: [OutputInfo] = []
        for index in 0..<Int(resources.pointee.count_connectors) {
            guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
            defer { drmModeFreeConnector(connector) }
            let c = connector.pointee
            guard c.connection == DRM_MODE_CONNECTED, c.count_modes > 0 else { continue }
            if let kept = existing.first(where: { $0.connector == c.connector_id }) {
                outputs.append(kept)
                continue
            }
            let modes = (0..<Int(c.count_modes)).map { c.modes[$0] }
            // Typed: Swift 6.2 takes the untyped `let` for an optional and stops at its use below.
            let mode: drmModeModeInfo = modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes[0]
            guard let crtc = pickCRTC(c, crtcs: crtcs, taken: taken) else { continue }
            taken.insert(crtc)
            let type = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
            outputs.append(OutputInfo(name: "\(type)-\(c.connector_type_id)", connector: c.connector_id, crtc: crtc,
                                      panelRotation: panelOrientation(of: c.connector_id).flatMap(Self.rotation(forPanelOrientation:)),
                                      widthMM: Int(c.mmWidth), heightMM: Int(c.mmHeight), mode: mode))
        }
        return outputs
    }

    /// The name of the connector's `panel orientation` value ("Normal", "Upside Down",
    /// "Left Side Up", "Right Side Up"), if it has that property.
    private func panelOrientation(of connector: UInt32) -> String? {
        guard let properties = drmModeObjectGetProperties(fd, connector, UInt32(DRM_MODE_OBJECT_CONNECTOR)) else { return nil }
        defer { drmModeFreeObjectProperties(properties) }
        for index in 0..<Int(properties.pointee.count_props) {
            guard let property = drmModeGetProperty(fd, properties.pointee.props[index]) else { continue }
            defer { drmModeFreeProperty(property) }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name == "panel orientation" else { continue }
            let value = properties.pointee.prop_values[index]
            for e in 0..<Int(property.pointee.count_enums) where property.pointee.enums[e].value == value {
                return withUnsafeBytes(of: property.pointee.enums[e].name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
        }
        return nil
    }

    /// The clockwise turn that shows a picture upright on a panel of this orientation: a panel
    /// mounted with its left side up needs the picture turned a quarter counter-clockwise (270),
    /// one with its right side up a quarter clockwise (90), as Plymouth and the kernel's console
    /// do. Nil for an unknown value.
    public static func rotation(forPanelOrientation name: String) -> SplashRotation? {
        switch name {
        case "Normal": SplashRotation.none
        case "Upside Down": .half
        case "Left Side Up": .threeQuarters
        case "Right Side Up": .quarter
        default: nil
        }
    }

    /// The CRTC the connector's encoder drives now, else the first free one an encoder of it can.
    private func pickCRTC(_ c: drmModeConnector, crtcs: [UInt32], taken: Set<UInt32>) -> UInt32? {
        if c.encoder_id != 0, let encoder = drmModeGetEncoder(fd, c.encoder_id) {
            // (A CRTC another output keeps is not this one's, even if the encoder still says so.)
            defer { drmModeFreeEncoder(encoder) }
            let crtc = encoder.pointee.crtc_id
            if crtc != 0, !taken.contains(crtc) { return crtc }
        }
        for index in 0..<Int(c.count_encoders) {
            guard let encoder = drmModeGetEncoder(fd, c.encoders[index]) else { continue }
            defer { drmModeFreeEncoder(encoder) }
            for (bit, crtc) in crtcs.enumerated() where encoder.pointee.possible_crtcs & (1 << UInt32(bit)) != 0 && !taken.contains(crtc) {
                return crtc
            }
        }
        return nil
    }
}
