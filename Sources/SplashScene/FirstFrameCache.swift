/// The theme's still view as the renderer drew it last time, kept per output size and turn, so the
/// next start shows it as its first frame (as platsch shows a raw frame), with no entry animation
/// and before fontconfig, pango and the logo's raster are set up. Pure: the file's format, and
/// whether a file answers for an output; the renderer reads and writes the files
/// (docs/renderer-kms.md, "From power-on").
///
/// A file is `first-frame-WIDTHxHEIGHT-TURN.raw` in the cache directory: a 48-byte header, then
/// the picture, XRGB8888, `width * 4` bytes a row.
///
///     0  "SPLKFF01"   magic and format
///     8  fingerprint  the theme's (UInt64, little-endian; `fingerprint(_:)`)
///    16  width, height, turn (degrees)   UInt32 each
///    28  reserved (0)
///    32  pixels' length (UInt64)
///    40  pixels' checksum (UInt64, FNV-1a): a file torn by a power cut is a miss, not a picture
public enum FirstFrameCache {
    /// What a cached picture is for.
    public struct Key: Sendable, Equatable {
        public var fingerprint: UInt64
        public var width: Int
        public var height: Int
        /// The turn in degrees: 0, 90, 180 or 270.
        public var turn: Int

        public init(fingerprint: UInt64, width: Int, height: Int, turn: Int) {
            self.fingerprint = fingerprint
            self.width = width
            self.height = height
            self.turn = turn
        }

        /// The file's name in the cache directory.
        public var fileName: String { "first-frame-\(width)x\(height)-\(turn).raw" }
        /// The picture's length in bytes.
        public var pixelBytes: Int { width * height * 4 }
    }

    /// Why a file gives no picture.
    public enum Miss: Error, Sendable, Equatable, CustomStringConvertible {
        /// No file for this size and turn.
        case absent
        /// The file is for another theme (or palette, firmware logo, renderer version).
        case themeChanged
        /// The file's header names another size or turn than its name.
        case sizeChanged
        /// Not a cache file, or torn.
        case corrupt(String)

        public var description: String {
            switch self {
            case .absent: "none yet for this size and turn"
            case .themeChanged: "the theme changed"
            case .sizeChanged: "made for another size or turn"
            case .corrupt(let reason): "unreadable (\(reason))"
            }
        }
    }

    static let magic = Array("SPLKFF01".utf8)
    public static let headerLength = 48

    /// The largest file read: a picture of 8192 × 8192.
    public static let maximumLength = headerLength + 8192 * 8192 * 4

    /// A fingerprint of everything the still view is drawn from: `parts` (the renderer's version,
    /// the theme as loaded, its files' names and bytes, the palette, the firmware's logo).
    public static func fingerprint(_ parts: [[UInt8]]) -> UInt64 {
        var hash = fnvOffset
        for part in parts {
            hash = fnv(withUnsafeBytes(of: UInt64(part.count).littleEndian) { Array($0) }, hash)
            hash = fnv(part, hash)
        }
        return hash
    }

    /// The file for `key` holding `pixels` (`key.pixelBytes` of them).
    public static func encode(_ key: Key, pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count == key.pixelBytes, "a picture of \(key.width) × \(key.height)")
        var out = magic
        out.reserveCapacity(headerLength + pixels.count)
        append(&out, key.fingerprint)
        for value in [key.width, key.height, key.turn, 0] { append32(&out, UInt32(value)) }
        append(&out, UInt64(pixels.count))
        append(&out, fnv(pixels, fnvOffset))
        out += pixels
        return out
    }

    /// The picture in `file` (nil: no file) if it answers for `key`; why not otherwise.
    public static func decode(_ file: [UInt8]?, for key: Key) -> Result<ArraySlice<UInt8>, Miss> {
        guard let file else { return .failure(.absent) }
        guard file.count >= headerLength, Array(file[0..<8]) == magic else { return .failure(.corrupt("not a first-frame file")) }
        guard read64(file, 8) == key.fingerprint else { return .failure(.themeChanged) }
        guard read32(file, 16) == key.width, read32(file, 20) == key.height, read32(file, 24) == key.turn else {
            return .failure(.sizeChanged)
        }
        // Another format's field, or damage: a file is exactly what `encode` writes.
        guard read32(file, 28) == 0 else { return .failure(.corrupt("its reserved field is not 0")) }
        let length = read64(file, 32)
        guard length == UInt64(key.pixelBytes), file.count == headerLength + key.pixelBytes else {
            return .failure(.corrupt("\(file.count) bytes, not \(headerLength + key.pixelBytes)"))
        }
        let pixels = file[headerLength...]
        guard fnv(pixels, fnvOffset) == read64(file, 40) else { return .failure(.corrupt("its checksum does not match")) }
        return .success(pixels)
    }

    // MARK: Bytes

    static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a, eight bytes a step (the picture's checksum is on the first frame's path: a
    /// picture of 4 MB in a few milliseconds), then the tail a byte a step.
    static func fnv<C: Collection<UInt8>>(_ bytes: C, _ start: UInt64) -> UInt64 {
        let prime: UInt64 = 0x100_0000_01b3
        if let hash = bytes.withContiguousStorageIfAvailable({ buffer -> UInt64 in
            var hash = start
            let raw = UnsafeRawBufferPointer(buffer)
            let words = raw.count / 8
            for i in 0..<words { hash = (hash ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* prime }
            for i in (words * 8)..<raw.count { hash = (hash ^ UInt64(raw[i])) &* prime }
            return hash
        }) {
            return hash
        }
        return fnv(Array(bytes), start)
    }

    private static func append(_ out: inout [UInt8], _ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    private static func append32(_ out: inout [UInt8], _ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    private static func read64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }

    private static func read32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int((0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) })
    }
}
