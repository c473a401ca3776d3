import CDrm
import Glibc
public import SplashScene

/// What one output shows: its name, size, the framebuffer's format, and the pixels as packed
/// opaque XRGB8888.
public struct ScreenCapture: Sendable {
    public var output: String
    public var width: Int
    public var height: Int
    public var format: ScreenFormat
    public var pixels: [UInt8]
}

/// Reads back what a DRM device's outputs scan out now, whichever program drew it (the splash
/// or the app): `splashd-kms screenshot`, which `splashctl screenshot` runs.
///
/// The kernel hands a framebuffer's buffer (`GETFB2`) only to its DRM master or to a process
/// with `CAP_SYS_ADMIN`: a screenshot is root's. The buffer is mapped read-only (a dumb buffer's
/// `MAP_DUMB`, else a PRIME export), only its linear layouts in the formats of `ScreenFormat`,
/// at most `largestSide` pixels a side and `largestBuffer` bytes.
public enum ScreenReader {
    public static let largestSide = 16384
    public static let largestBuffer = 256 << 20

    /// Every connected output that shows a picture (or only `wanted`), in the device's order.
    public static func capture(_ device: DRMDevice, output wanted: String? = nil) throws(KMSError) -> [ScreenCapture] {
        let fd = device.fd
        guard let resources = drmModeGetResources(fd) else { throw KMSError("cannot read \(device.path)'s resources", errno: errno) }
        defer { drmModeFreeResources(resources) }
        var names: [String] = []
        var captures: [ScreenCapture] = []
        for index in 0..<Int(resources.pointee.count_connectors) {
            guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
            defer { drmModeFreeConnector(connector) }
            let c = connector.pointee
            let type = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
            let name = "\(type)-\(c.connector_type_id)"
            guard c.connection == DRM_MODE_CONNECTED else { continue }
            names.append(name)
            if let wanted, wanted != name { continue }
            var crtcID: UInt32 = 0
            if c.encoder_id != 0, let encoder = drmModeGetEncoder(fd, c.encoder_id) {
                crtcID = encoder.pointee.crtc_id
                drmModeFreeEncoder(encoder)
            }
            guard crtcID != 0, let crtc = drmModeGetCrtc(fd, crtcID) else {
                if wanted != nil { throw KMSError("output \(name) is off: no CRTC drives it") }
                continue
            }
            defer { drmModeFreeCrtc(crtc) }
            let shown = crtc.pointee
            guard shown.buffer_id != 0, shown.mode_valid != 0 else {
                if wanted != nil { throw KMSError("output \(name) shows nothing: its CRTC scans out no framebuffer") }
                continue
            }
            captures.append(try read(device, framebuffer: shown.buffer_id, output: name, x: Int(shown.x), y: Int(shown.y),
                                     width: Int(shown.mode.hdisplay), height: Int(shown.mode.vdisplay)))
        }
        if let wanted, !names.contains(wanted) {
            throw KMSError("\(device.path) has no connected output \(wanted) (connected: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        guard !captures.isEmpty else { throw KMSError("no output of \(device.path) shows a picture (connected: \(names.isEmpty ? "none" : names.joined(separator: ", ")))") }
        return captures
    }

    /// The part of framebuffer `id` that an output shows: `width` × `height` from (`x`, `y`).
    static func read(_ device: DRMDevice, framebuffer id: UInt32, output: String, x: Int, y: Int, width: Int, height: Int) throws(KMSError) -> ScreenCapture {
        let fd = device.fd
        guard let info = drmModeGetFB2(fd, id) else {
            throw KMSError("cannot read output \(output)'s framebuffer \(id)", errno: errno)
        }
        defer { drmModeFreeFB2(info) }
        let fb = info.pointee
        let handles = withUnsafeBytes(of: fb.handles) { Array($0.bindMemory(to: UInt32.self)) }
        defer {
            // GETFB2 gave this descriptor its own handles (the same one may stand for several planes).
            for handle in Set(handles) where handle != 0 { _ = drmCloseBufferHandle(fd, handle) }
        }
        guard handles[0] != 0 else {
            throw KMSError("reading what output \(output) shows needs root: the kernel gives a framebuffer's buffer only to its DRM master or to CAP_SYS_ADMIN")
        }
        guard let format = ScreenFormat(rawValue: fb.pixel_format) else {
            let known = ScreenFormat.allCases.map { ScreenFormat.name(of: $0.rawValue) }.joined(separator: ", ")
            throw KMSError("output \(output) scans out \(ScreenFormat.name(of: fb.pixel_format)), a format screenshot does not read (it reads \(known))")
        }
        if fb.flags & UInt32(DRM_MODE_FB_MODIFIERS) != 0, fb.modifier != 0 {
            throw KMSError("output \(output)'s framebuffer is tiled or compressed (modifier 0x\(String(fb.modifier, radix: 16))): screenshot reads linear buffers only")
        }
        let pitch = Int(fb.pitches.0), offset = Int(fb.offsets.0)
        let fbWidth = Int(fb.width), fbHeight = Int(fb.height)
        guard fbWidth <= largestSide, fbHeight <= largestSide, pitch <= largestSide * 4 * 2, pitch * fbHeight + offset <= largestBuffer else {
            throw KMSError("output \(output)'s framebuffer (\(fbWidth)×\(fbHeight), \(pitch) bytes a row) is over screenshot's bound (\(largestSide) a side, \(largestBuffer >> 20) MiB)")
        }
        // What the CRTC shows of it (the whole framebuffer, unless the app panned a larger one).
        let shownWidth = min(width, fbWidth - min(x, fbWidth)), shownHeight = min(height, fbHeight - min(y, fbHeight))
        guard shownWidth > 0, shownHeight > 0 else { throw KMSError("output \(output) shows no part of its framebuffer") }
        let length = offset + pitch * fbHeight
        let mapped = try map(device, handle: handles[0], length: length, output: output)
        defer { munmap(mapped, length) }
        guard let pixels = format.opaquePixels(
            from: UnsafeRawBufferPointer(start: mapped, count: length), origin: offset + y * pitch + x * format.bytesPerPixel,
            width: shownWidth, height: shownHeight, pitch: pitch)
        else { throw KMSError("output \(output)'s framebuffer is smaller than it says") }
        return ScreenCapture(output: output, width: shownWidth, height: shownHeight, format: format, pixels: pixels)
    }

    /// The buffer mapped read-only: a dumb buffer through `MAP_DUMB`, else (a GPU's buffer) its
    /// PRIME export.
    static func map(_ device: DRMDevice, handle: UInt32, length: Int, output: String) throws(KMSError) -> UnsafeMutableRawPointer {
        var offset: UInt64 = 0
        if drmModeMapDumbBuffer(device.fd, handle, &offset) == 0 {
            let mapped = mmap(nil, length, PROT_READ, MAP_SHARED, device.fd, off_t(Int64(bitPattern: offset)))
            if let mapped, mapped != MAP_FAILED { return mapped }
        }
        var prime: Int32 = -1
        guard drmPrimeHandleToFD(device.fd, handle, UInt32(DRM_CLOEXEC), &prime) == 0, prime >= 0 else {
            throw KMSError("cannot map output \(output)'s framebuffer (neither a dumb buffer nor exportable)", errno: errno)
        }
        defer { close(prime) }
        let mapped = mmap(nil, length, PROT_READ, MAP_SHARED, prime, 0)
        guard let mapped, mapped != MAP_FAILED else { throw KMSError("cannot map output \(output)'s framebuffer", errno: errno) }
        return mapped
    }
}
