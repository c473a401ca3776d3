#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SplashConfig
import Testing
import TestSupport
import SplashTheme

/// The firmware's logo as ACPI's BGRT publishes it: a BMP and its place (design §16).
@Suite struct FirmwareLogoTests {
    /// A BMP of `width` × `height` whose pixel (x, y) is `color(x, y)` (0xRRGGBB), 24 or 32 bits a
    /// pixel, its rows bottom-up (a positive height, as firmwares write them) or top-down.
    static func bmp(width: Int, height: Int, bits: Int = 24, topDown: Bool = false, color: (Int, Int) -> UInt32) -> [UInt8] {
        let stride = (width * bits / 8 + 3) & ~3
        var bytes: [UInt8] = []
        func u16(_ v: Int) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) { u16(v & 0xFFFF); u16(v >> 16 & 0xFFFF) }
        bytes += Array("BM".utf8)
        u32(54 + stride * height); u32(0); u32(54)
        u32(40); u32(width); u32(topDown ? Int(UInt32(bitPattern: Int32(-height))) : height); u16(1); u16(bits); u32(0)
        u32(stride * height); u32(2835); u32(2835); u32(0); u32(0)
        for row in 0..<height {
            let y = topDown ? row : height - 1 - row
            var line: [UInt8] = []
            for x in 0..<width {
                let c = color(x, y)
                line += [UInt8(c & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c >> 16 & 0xFF)]
                if bits == 32 { line.append(0) }
            }
            bytes += line + [UInt8](repeating: 0, count: stride - line.count)
        }
        return bytes
    }

    static func pattern(_ x: Int, _ y: Int) -> UInt32 { UInt32(x * 40 % 256) << 16 | UInt32(y * 50 % 256) << 8 | 0x5A }

    @Test(arguments: [(24, false), (24, true), (32, false), (32, true)])
    func aBMPIsDecodedRowByRowFromTheTop(bits: Int, topDown: Bool) throws {
        // 5 pixels a row: 15 bytes at 24 bits, padded to 16.
        let logo = try FirmwareLogo.decodeBMP(Self.bmp(width: 5, height: 3, bits: bits, topDown: topDown, color: Self.pattern))
        #expect(logo.width == 5 && logo.height == 3)
        for y in 0..<3 {
            for x in 0..<5 { #expect(logo.pixels[y * 5 + x] == 0xFF00_0000 | Self.pattern(x, y), "pixel \(x),\(y)") }
        }
    }

    @Test func whatIsNotAnUncompressedBMPIsRefusedWithItsReason() {
        let good = Self.bmp(width: 4, height: 4, color: Self.pattern)
        func reason(_ bytes: [UInt8]) -> String? {
            do {
                _ = try FirmwareLogo.decodeBMP(bytes)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(reason(Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 60))?.contains("not a BMP") == true)
        #expect(reason(Array(good.dropLast(5)))?.contains("cut short") == true)
        var rle = good
        rle[30] = 1
        #expect(reason(rle)?.contains("compression 1") == true)
        var eight = good
        eight[28] = 8
        #expect(reason(eight)?.contains("8 bits a pixel") == true)
        var huge = good
        huge[18...21] = [0x00, 0x00, 0x01, 0x00]  // 65536 wide
        #expect(reason(huge)?.contains("65536x4") == true)
        #expect(reason(good) == nil)
    }

    @Test func itIsReadFromTheKernelsDirectoryWithItsPlace() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-bgrt")
        defer { directory.remove() }
        let image = Self.bmp(width: 7, height: 2, color: Self.pattern)
        try Data(image).write(to: URL(fileURLWithPath: directory.file("image")))
        try directory.write("xoffset", "543\n")
        try directory.write("yoffset", "371\n")
        try directory.write("type", "0\n")
        let logo = try FirmwareLogo.read(from: directory.path)
        #expect(logo.x == 543 && logo.y == 371 && logo.width == 7 && logo.height == 2 && logo.file == image)
        try directory.write("type", "1\n")
        #expect(throws: FirmwareLogo.Unavailable("the firmware's logo is of type 1, not a bitmap (0)")) { try FirmwareLogo.read(from: directory.path) }
        try directory.write("type", "0\n")
        try directory.write("yoffset", "-3\u{1B}\n")
        #expect(throws: FirmwareLogo.Unavailable("\(directory.path)/yoffset is not a position: \"-3\\x1b\"")) { try FirmwareLogo.read(from: directory.path) }
        #expect(throws: FirmwareLogo.Unavailable("the firmware publishes no logo (no \(directory.path)/none)")) {
            try FirmwareLogo.read(from: directory.path + "/none")
        }
    }

    @Test func itStaysAtTheFirmwaresPlaceWhereItFitsElseItIsCentred() {
        let logo = FirmwareLogo(x: 543, y: 371, width: 193, height: 58, pixels: [], file: [])
        #expect(logo.origin(onWidth: 1280, height: 800)! == (543, 371))
        #expect(logo.origin(onWidth: 700, height: 400)! == (253, 171), "a smaller screen: centred")
        #expect(logo.origin(onWidth: 100, height: 400) == nil, "larger than the picture: not drawn")
    }

    @Test func aThemeAsksForItWithAFallback() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-theme")
        defer { directory.remove() }
        try directory.write("logo.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>")
        try directory.write("theme.toml", "name = \"A\"\nlogo = \"firmware\"\nlogo_fallback = \"logo.svg\"\n")
        let theme = try ThemeLoader.load(directory: directory.path).theme
        #expect(theme.firmwareLogo && theme.logo == "logo.svg")
        try directory.write("theme.toml", "name = \"A\"\nlogo = \"firmware\"\n")
        let bare = try ThemeLoader.load(directory: directory.path).theme
        #expect(bare.firmwareLogo && bare.logo == nil)
        try directory.write("theme.toml", "name = \"A\"\nlogo = \"logo.svg\"\nlogo_fallback = \"logo.svg\"\n")
        #expect {
            try ThemeLoader.load(directory: directory.path)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.line == 3 && error.message.contains("logo_fallback is for logo = \"firmware\"")
        }
        try directory.write("theme.toml", "name = \"A\"\nlogo = \"firmware\"\nlogo_fallback = \"firmware\"\n")
        #expect(throws: ConfigError.self) { try ThemeLoader.load(directory: directory.path) }
    }
}
