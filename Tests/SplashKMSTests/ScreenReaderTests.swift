import SplashDraw
import SplashKMS
import Testing
import SplashScene

/// The pixel formats `splashd-kms screenshot` reads, converted to what a screen shows; reading a
/// real display's framebuffers is in Tests/vm (test_kms.py).
@Suite struct ScreenFormatTests {
    @Test func fourccCodesAreNamedByTheirCharacters() {
        #expect(ScreenFormat.allCases.map { ScreenFormat.name(of: $0.rawValue) } == ["XR24", "AR24", "XB24", "AB24", "RG16"])
        #expect(ScreenFormat.name(of: 0x3231_564E) == "NV12")
        #expect(ScreenFormat.name(of: 0x0000_0001) == "0x1", "unprintable bytes are shown as a number")
    }

    /// One pixel of each format holding the same colour, #0D7377 (the reference teal), at
    /// (1, 1) of a 2×2 buffer whose rows carry padding: the same opaque XRGB8888 from each.
    @Test(arguments: [
        (ScreenFormat.xrgb8888, [0x77, 0x73, 0x0D, 0x00] as [UInt8]),
        (.argb8888, [0x77, 0x73, 0x0D, 0x80]),
        (.xbgr8888, [0x0D, 0x73, 0x77, 0x00]),
        (.abgr8888, [0x0D, 0x73, 0x77, 0xFF]),
    ])
    func thirtyTwoBitFormatsBecomeOpaqueXRGB(format: ScreenFormat, pixel: [UInt8]) throws {
        let pitch = 12  // 8 bytes of pixels and 4 of padding a row
        var buffer = [UInt8](repeating: 0xEE, count: pitch * 2)
        buffer.replaceSubrange(pitch + 4..<pitch + 8, with: pixel)
        let pixels = try #require(buffer.withUnsafeBytes { format.opaquePixels(from: $0, width: 2, height: 2, pitch: pitch) })
        #expect(pixels.count == 16)
        #expect(Array(pixels[12..<16]) == [0x77, 0x73, 0x0D, 0xFF])
        #expect(Array(pixels[0..<4]) == [0xEE, 0xEE, 0xEE, 0xFF], "padding is never read as a pixel; alpha is opaque")
    }

    @Test func rgb565IsWidenedToEightBitsAChannel() throws {
        // Full red, half green (31 of 63), no blue; then white.
        let red: UInt16 = 0b11111_000000_00000, mixed: UInt16 = 0b00000_011111_00000, white: UInt16 = 0xFFFF
        let buffer = [red, mixed, white].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let pixels = try #require(buffer.withUnsafeBytes { ScreenFormat.rgb565.opaquePixels(from: $0, width: 3, height: 1, pitch: 6) })
        #expect(pixels == [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x7D, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    /// The shown part of a larger framebuffer (an app that pans one): from an origin.
    @Test func anOriginSelectsTheShownPart() throws {
        let buffer: [UInt8] = [1, 1, 1, 0, 2, 2, 2, 0, 3, 3, 3, 0, 4, 4, 4, 0]  // 2×2 XRGB, pitch 8
        let pixels = try #require(buffer.withUnsafeBytes { ScreenFormat.xrgb8888.opaquePixels(from: $0, origin: 12, width: 1, height: 1, pitch: 8) })
        #expect(pixels == [4, 4, 4, 0xFF])
    }

    /// A buffer smaller than its size and pitch say, or a pitch shorter than a row: nothing is
    /// read outside it.
    @Test func rowsThatDoNotFitAreRefused() {
        let buffer = [UInt8](repeating: 0, count: 31)
        buffer.withUnsafeBytes { raw in
            #expect(ScreenFormat.xrgb8888.opaquePixels(from: raw, width: 2, height: 4, pitch: 8) == nil, "32 bytes needed, 31 there")
            #expect(ScreenFormat.xrgb8888.opaquePixels(from: raw, width: 2, height: 3, pitch: 8) != nil)
            #expect(ScreenFormat.xrgb8888.opaquePixels(from: raw, width: 3, height: 1, pitch: 8) == nil, "a pitch shorter than a row")
            #expect(ScreenFormat.xrgb8888.opaquePixels(from: raw, origin: 24, width: 2, height: 1, pitch: 8) == nil)
            #expect(ScreenFormat.rgb565.opaquePixels(from: raw, width: 0, height: 1, pitch: 8) == nil)
        }
    }

    /// What the PNG writer makes of it: 8-bit RGB (colour type 2), whatever the alpha bytes held.
    @Test func theOpaquePNGIsRGB() throws {
        let image = SplashImage(width: 3, height: 2)
        image.replacePixels(with: [UInt8](repeating: 0x40, count: 24)[...])  // alpha 0x40: not opaque
        let png = try image.opaquePNG()
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(png[25] == 2, "colour type RGB")
        #expect(Array(png[16..<24]) == [0, 0, 0, 3, 0, 0, 0, 2], "width and height")
    }
}
