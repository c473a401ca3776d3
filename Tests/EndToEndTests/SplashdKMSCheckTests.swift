import Foundation
import Testing
import TestSupport

/// `splashd-kms check --theme DIR` (design §13): a theme the native renderer cannot draw is refused
/// with file and line, never half-drawn.
@MainActor @Suite struct SplashdKMSCheckTests {
    var binary: String { "\(Binaries.directory)/splashd-kms" }

    @Test func theReferenceThemeCanBeDrawn() throws {
        let result = try ProcessRunner.run(binary, ["check", "--theme", "\(Binaries.packageRoot)/renderer/themes/reference"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "theme \"Ship That App\" can be drawn (1 files)\n")
    }

    @Test func aLogoThatCannotBeDrawnIsRefusedWithItsFileAndLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let toml = try String(contentsOfFile: "\(Binaries.packageRoot)/renderer/themes/reference/theme.toml", encoding: .utf8)
        _ = try dir.write("theme.toml", toml)
        _ = try dir.write("logo.svg", "<svg")
        let result = try ProcessRunner.run(binary, ["check", "--theme", dir.path])
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(dir.path)/logo.svg: cannot draw the logo: "), "\(result.stderr)")
        #expect(result.stderr.contains("on line 1"), "the SVG reader's line: \(result.stderr)")
    }

    @Test func aBrokenThemeFileIsRefusedWithItsLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write("theme.toml", "name = \"X\"\nindicator = \"rainbow\"\n")
        let result = try ProcessRunner.run(binary, ["check", "--theme", dir.path])
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(dir.path)/theme.toml:2:"), "\(result.stderr)")
    }

    // MARK: Hostile logos (issue 36): each drawn by a child process under LogoBudget

    /// A theme in a new directory with `logo` holding `bytes`; `check`'s result.
    func check(logo: String, _ bytes: [UInt8]) throws -> (CommandResult, String) {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write("theme.toml", "name = \"Hostile\"\nlogo = \"\(logo)\"\n")
        #expect(FileManager.default.createFile(atPath: dir.file(logo), contents: Data(bytes)))
        return (try ProcessRunner.run(binary, ["check", "--theme", dir.path], timeout: .seconds(60)), dir.file(logo))
    }

    func svg(_ body: String) -> [UInt8] {
        Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">\(body)</svg>".utf8)
    }

    /// feTurbulence with 100,000 octaves cost 37 s a frame, drawn on every frame.
    @Test func aLogoOverItsCPUBudgetIsRefused() throws {
        let (result, path) = try check(logo: "logo.svg", svg(
            #"<filter id="f"><feTurbulence baseFrequency="0.05" numOctaves="100000"/></filter><rect width="100" height="100" filter="url(#f)"/>"#))
        #expect(result.status == 78)
        // The CPU budget, or on a machine too busy to give it 2 s of CPU in time, the wall budget.
        #expect(
            ["drawing it needs more than 2 s of CPU, the budget", "drawing it took longer than 30 s, the budget; drawn without it"]
                .map { "\(path): cannot draw the logo: \($0)\n" }.contains(result.stderr), "\(result.stderr)")
    }

    /// librsvg panics on a 30×30 feConvolveMatrix ("Data storage buffer dimension mismatch"):
    /// it aborted check and the renderer (exit 134).
    @Test func aLogoThatCrashesLibrsvgIsRefusedAndCheckLives() throws {
        let kernel = Array(repeating: "1", count: 900).joined(separator: " ")
        let (result, path) = try check(logo: "logo.svg", svg(
            #"<filter id="f"><feConvolveMatrix order="30" kernelMatrix="\#(kernel)"/></filter><rect width="100" height="100" fill="red" filter="url(#f)"/>"#))
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("\(path): cannot draw the logo: its drawing crashed (Aborted)"), "\(result.stderr)")
    }

    /// A PNG: its structure is read before a pixel is decoded, and each problem is named (a bad
    /// CRC, a 0×0 image or an SVG named .png were all "out of memory").
    @Test func aPNGsProblemsAreNamedBeforeAnythingIsDecoded() throws {
        func png(width: Int, height: Int, corrupt: Bool = false) -> [UInt8] {
            func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
                let body = Array(type.utf8) + data
                var crc = PNGCRC.of(body)
                if corrupt && type == "IDAT" { crc ^= 1 }
                return be(data.count) + body + be(Int(crc))
            }
            func be(_ n: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: n >> $0) } }
            // One row of zeros, stored (zlib, no compression): enough for a 1×1 image.
            let idat: [UInt8] = [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]
            return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [1, 0, 0, 0, 0])
                + chunk("IDAT", idat) + chunk("IEND", [])
        }
        let cases: [([UInt8], String)] = [
            (png(width: 23000, height: 23000), "the PNG is 23000×23000 pixels, over the limit of 16777216 (4096×4096): scale it down (it is drawn at most 120 pixels wide)"),
            (png(width: 0, height: 0), "the PNG is 0×0 pixels: it has none"),
            (png(width: 1, height: 1, corrupt: true), "the PNG is damaged: its IDAT chunk fails its CRC check"),
            (svg("<rect width=\"1\" height=\"1\"/>"), "not a PNG image: it is an SVG (name it .svg)"),
            (Array(png(width: 1, height: 1).dropLast(12)), "the PNG is cut short (no IEND chunk)"),
        ]
        for (bytes, reason) in cases {
            let (result, path) = try check(logo: "logo.png", bytes)
            #expect(result.status == 78)
            #expect(result.stderr == "\(path): cannot draw the logo: \(reason)\n")
        }
        let (good, _) = try check(logo: "logo.png", png(width: 1, height: 1))
        #expect(good.status == 0, "\(good.stderr)")
    }
}

extension SplashdKMSCheckTests {
    /// A font file that keeps its character map and loses its glyphs (LiberationSans cut to
    /// 20,000 bytes did): FreeType reads it, and the name drew blank while check said yes.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"), "needs fonts-dejavu-core"))
    func aFontWhoseGlyphsAreGoneIsRefused() throws {
        var font = Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")))
        func word(_ at: Int) -> Int { Int(font[at]) << 24 | Int(font[at + 1]) << 16 | Int(font[at + 2]) << 8 | Int(font[at + 3]) }
        let tables = Int(font[4]) << 8 | Int(font[5])
        var zeroed = 0
        for index in 0..<tables {
            let record = 12 + index * 16
            guard String(decoding: font[record..<(record + 4)], as: UTF8.self) == "glyf" else { continue }
            let (offset, length) = (word(record + 8), word(record + 12))
            for at in offset..<(offset + length) { font[at] = 0 }
            zeroed = length
        }
        try #require(zeroed > 0, "DejaVuSans has a glyf table")
        // Its names changed (same length), so fontconfig cannot take the system's DejaVu Sans
        // for it.
        font = renamingFont(font, from: "DejaVu", to: "Cutsns")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        _ = try dir.write("theme.toml", "name = \"Hostile\"\nfont = \"Cutsns Sans\"\nfont_file = \"cut.ttf\"\n")
        #expect(FileManager.default.createFile(atPath: dir.file("cut.ttf"), contents: Data(font)))
        let result = try ProcessRunner.run(binary, ["check", "--theme", dir.path])
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(dir.path)/theme.toml: cannot use the font: name draw no ink in the font file cut.ttf"), "\(result.stderr)")
    }
}

/// PNG's CRC-32, for the tests' own PNGs.
enum PNGCRC {
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}
