import CDrm
import Glibc

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
    public let fd: Int32

    public init(path: String) throws(KMSError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw KMSError("cannot open \(path)", errno: errno) }
        var capability: UInt64 = 0
        guard drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &capability) == 0, capability != 0 else {
            close(fd)
            throw KMSError("\(path) has no dumb buffers (not a mode-setting device)")
        }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Gives DRM master up, so the app may take the display (the last frame stays scanned out).
    public func dropMaster() { _ = drmDropMaster(fd) }

    /// What one connected output is: its name (`Virtual-1`, `HDMI-A-1`), the connector, the CRTC
    /// that will drive it, and its preferred mode.
    public struct OutputInfo: @unchecked Sendable {
        public var name: String
        public var connector: UInt32
        public var crtc: UInt32
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
            let mode = modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes[0]
            guard let crtc = pickCRTC(c, crtcs: crtcs, taken: taken) else { continue }
            taken.insert(crtc)
            let type = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
            outputs.append(OutputInfo(name: "\(type)-\(c.connector_type_id)", connector: c.connector_id, crtc: crtc, mode: mode))
        }
        return outputs
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
