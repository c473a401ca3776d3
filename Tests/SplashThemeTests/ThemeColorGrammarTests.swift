import Foundation
import SplashTheme
import Testing
import TestSupport

/// The theme loader's colour grammar is CSS's, as Chromium reads it: every colour the loader
/// accepts, `CSS.supports('color', …)` accepts (Tests/browser/css_colors.tsv, held to Chromium by
/// Tests/browser/test_theme_colors.py). `rgb(5., 0, 0)` and `rgb(100%, 0, 0)` passed the loader
/// while the page's background became invalid and splashd-kms drew red.
@Suite struct ThemeColorGrammarTests {
    @Test func whatTheLoaderAcceptsChromiumSupports() throws {
        let text = try String(contentsOfFile: Binaries.packageRoot + "/Tests/browser/css_colors.tsv", encoding: .utf8)
        var rows = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("# ") {
            let fields = line.split(separator: "\t")
            try #require(fields.count == 2, "\(line)")
            let color = String(fields[0]), supported = fields[1] == "1"
            rows += 1
            if ThemeColor.isColor(color) {
                #expect(supported, "the loader accepts \(color), which CSS does not")
                #expect(ThemeColor(css: color)?.rgba != nil || color == "transparent", "\(color) has channels")
            }
        }
        #expect(rows > 30)
        // The forms the loader is for: each one accepted.
        for color in ["#abc", "#aabbccdd", "rgb(1, 2, 3)", "rgb(.5, 0, 0)", "rgb(100%, 0%, 0%)", "rgba(1, 2, 3, 50%)", "transparent"] {
            #expect(ThemeColor.isColor(color), "\(color)")
        }
    }
}
