/// A framebuffer pixel format `splashd-kms screenshot` reads: its DRM fourcc code. Every other
/// format (YUV, 10-bit, a tiled or compressed layout) is refused by name.
public enum ScreenFormat: UInt32, Sendable, CaseIterable {
    /// `XR24`: 32 bits, blue in the lowest byte, the top byte unused (what the splash and most
    /// apps scan out).
    case xrgb8888 = 0x3432_5258
    /// `AR24`: as `XR24`, the top byte alpha (a primary plane shows the colour over black).
    case argb8888 = 0x3432_5241
    /// `XB24`: 32 bits, red in the lowest byte.
    case xbgr8888 = 0x3432_4258
    /// `AB24`: as `XB24`, the top byte alpha.
    case abgr8888 = 0x3432_4241
    /// `RG16`: 16 bits, 5 red, 6 green, 5 blue.
    case rgb565 = 0x3631_4752

    public var bytesPerPixel: Int { self == .rgb565 ? 2 : 4 }

    /// The four characters of a fourcc code (`XR24`), or its hexadecimal value when they are not
    /// all printable.
    public static func name(of code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * $0)) }
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return "0x" + String(code, radix: 16) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `width` × `height` pixels from `source` (`pitch` bytes a row, starting at byte `origin`),
    /// as packed opaque XRGB8888 (`width` × 4 bytes a row, the top byte 0xFF). Nil when the rows
    /// do not fit in `source`.
    public func opaquePixels(from source: UnsafeRawBufferPointer, origin: Int = 0, width: Int, height: Int, pitch: Int) -> [UInt8]? {
        guard width > 0, height > 0, origin >= 0, pitch >= width * bytesPerPixel,
              origin + pitch * (height - 1) + width * bytesPerPixel <= source.count
        else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBytes { target in
            for y in 0..<height {
                let row = origin + y * pitch
                for x in 0..<width {
                    let value: UInt32
                    switch self {
                    case .xrgb8888, .argb8888:
                        value = source.loadUnaligned(fromByteOffset: row + x * 4, as: UInt32.self) | 0xFF00_0000
                    case .xbgr8888, .abgr8888:
                        let v = source.loadUnaligned(fromByteOffset: row + x * 4, as: UInt32.self)
                        value = 0xFF00_0000 | (v & 0x0000_FF00) | ((v & 0xFF) << 16) | ((v >> 16) & 0xFF)
                    case .rgb565:
                        let v = UInt32(source.loadUnaligned(fromByteOffset: row + x * 2, as: UInt16.self))
                        let r = (v >> 11) & 0x1F, g = (v >> 5) & 0x3F, b = v & 0x1F
                        value = 0xFF00_0000 | (((r << 3) | (r >> 2)) << 16) | (((g << 2) | (g >> 4)) << 8) | ((b << 3) | (b >> 2))
                    }
                    target.storeBytes(of: value.littleEndian, toByteOffset: (y * width + x) * 4, as: UInt32.self)
                }
            }
        }
        return pixels
    }
}
