import SplashCore
import SplashJSON
import SplashSupport

/// The logo the firmware drew at power-on, as ACPI's Boot Graphics Resource Table publishes it
/// (`/sys/firmware/acpi/bgrt/`: `image`, a BMP; `xoffset` and `yoffset`, where its top left
/// corner was on the firmware's screen; `type`, 0 for a bitmap). A theme with
/// `logo = "firmware"` draws it at that place and at its own scale (one pixel a pixel), so the
/// firmware's picture, the splash and the app are one picture (design §16), as Plymouth's `bgrt`
/// theme does.
public struct FirmwareLogo: Sendable, Equatable {
    /// Where the firmware drew it: its top left corner, in the firmware screen's pixels.
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    /// Each pixel as 0xAARRGGBB, rows from the top (a BMP's own rows run from the bottom).
    public var pixels: [UInt32]
    /// The BMP file as the firmware published it (the web renderer's page shows it as it is).
    public var file: [UInt8]

    /// The value of a theme's `logo` that asks for it.
    public static let themeValue = "firmware"
    public init(x: Int, y: Int, width: Int, height: Int, pixels: [UInt32], file: [UInt8]) {
        precondition(pixels.isEmpty || pixels.count == width * height, "a logo is width × height pixels")
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.pixels = pixels
        self.file = file
    }

    /// Where the kernel publishes it.
    public static let directory = "/sys/firmware/acpi/bgrt"
    /// The largest image read: a 4K screen's worth of 32-bit pixels and the header.
    public static let maximumFileBytes = 4096 * 2160 * 4 + 4096
    /// The largest side: no firmware screen is larger.
    public static let maximumSide = 8192

    /// Why the firmware's logo cannot be used (the theme's own logo is drawn instead).
    public struct Unavailable: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The logo the firmware published in `directory`, decoded.
    public static func read(from directory: String = FirmwareLogo.directory) throws(Unavailable) -> FirmwareLogo {
        func file(_ name: String, limit: Int) throws(Unavailable) -> [UInt8] {
            do {
                return try FileSystem.readFile(directory + "/" + name, limit: limit)
            } catch {
                throw Unavailable(error.isNotFound && name == "image"
                                  ? "the firmware publishes no logo (no \(directory))" : "\(directory)/\(name): \(error.reason)")
            }
        }
        func number(_ name: String) throws(Unavailable) -> Int {
            // (sysfs says every attribute is 4096 bytes long.)
            let text = String(decoding: try file(name, limit: 4096), as: UTF8.self).trimmingSpaces
            guard let value = Int(text), value >= 0, value <= maximumSide else {
                throw Unavailable("\(directory)/\(name) is not a position: \"\(LogEscaping.escaped(text))\"")
            }
            return value
        }
        let bytes = try file("image", limit: maximumFileBytes)
        let type = try number("type")
        guard type == 0 else { throw Unavailable("the firmware's logo is of type \(type), not a bitmap (0)") }
        var logo = try decodeBMP(bytes)
        logo.x = try number("xoffset")
        logo.y = try number("yoffset")
        return logo
    }

    /// The firmware's logo for `theme` when it asks for it (`logo = "firmware"`), else nil. What
    /// happened goes to `log` in one line: the logo's size and place, or why there is none and
    /// what is drawn instead (the theme's `logo_fallback`). Both renderers say it so.
    public static func read(for theme: Theme, from directory: String = FirmwareLogo.directory, log: (String) -> Void) -> FirmwareLogo? {
        guard theme.firmwareLogo else { return nil }
        do {
            let logo = try read(from: directory)
            log("the firmware's logo: \(logo.width)x\(logo.height) at \(logo.x),\(logo.y)")
            return logo
        } catch {
            log("\(error); drawing \(theme.logo.map { "logo_fallback \($0)" } ?? "no logo")")
            return nil
        }
    }

    /// Decodes an uncompressed BMP of 24 or 32 bits a pixel (what firmwares publish; 32-bit ones
    /// are opaque: BGRT's image has no transparency), its rows bottom-up or top-down. The logo's
    /// place is left at 0, 0.
    public static func decodeBMP(_ bytes: [UInt8]) throws(Unavailable) -> FirmwareLogo {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 54, bytes[0] == UInt8(ascii: "B"), bytes[1] == UInt8(ascii: "M") else {
            throw Unavailable("the firmware's logo is not a BMP image")
        }
        let offset = u32(10), headerSize = u32(14)
        guard headerSize >= 40 else { throw Unavailable("the firmware's logo has an old BMP header (\(headerSize) bytes)") }
        let width = u32(18)
        let rawHeight = Int32(truncatingIfNeeded: UInt32(u32(22)))
        let bits = u16(28), compression = u32(30)
        guard u16(26) == 1, bits == 24 || bits == 32, compression == 0 || (compression == 3 && bits == 32) else {
            throw Unavailable("the firmware's logo is a BMP of \(bits) bits a pixel, compression \(compression): only 24 and 32 bits, uncompressed, are drawn")
        }
        let topDown = rawHeight < 0
        let height = Int(rawHeight.magnitude)
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide else {
            throw Unavailable("the firmware's logo is \(width)x\(height) pixels, outside 1 to \(maximumSide) a side")
        }
        let stride = (width * bits / 8 + 3) & ~3
        guard offset >= 14 + headerSize, offset <= bytes.count, bytes.count - offset >= stride * height else {
            throw Unavailable("the firmware's logo is cut short: \(width)x\(height) needs \(stride * height) bytes of pixels")
        }
        var pixels = [UInt32](repeating: 0, count: width * height)
        let step = bits / 8
        for row in 0..<height {
            let start = offset + (topDown ? row : height - 1 - row) * stride
            for column in 0..<width {
                let at = start + column * step
                pixels[row * width + column] = 0xFF00_0000 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at])
            }
        }
        return FirmwareLogo(x: 0, y: 0, width: width, height: height, pixels: pixels, file: bytes)
    }

    /// Where to draw it on a picture of `width` × `height` (the output's own pixels, before any
    /// turn): at the firmware's place when it fits there, the screen being the firmware's own
    /// mode; else centred, as the firmware centres it on a screen of another size; nil when it is
    /// larger than the picture.
    public func origin(onWidth screenWidth: Int, height screenHeight: Int) -> (x: Int, y: Int)? {
        guard width <= screenWidth, height <= screenHeight else { return nil }
        if x + width <= screenWidth && y + height <= screenHeight { return (x, y) }
        return ((screenWidth - width) / 2, (screenHeight - height) / 2)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\n" || last == "\t" { text.removeLast() }
        while let first = text.first, first == " " || first == "\n" || first == "\t" { text.removeFirst() }
        return String(text)
    }
}
