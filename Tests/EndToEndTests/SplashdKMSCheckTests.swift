import Foundation
import Testing
import TestSupport

/// `splashd-kms check --theme DIR` (SPEC §13): a theme the native renderer cannot draw is refused
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
}
