import Foundation
@testable import SplashDraw
import Testing
import TestSupport

/// The native renderer's text styles are the page's: each one equal to its rule in
/// renderer/web/splash.css, so a change to one side that forgets the other fails here.
@Suite struct TextStyleTests {
    /// The declarations of the rule whose selector is exactly `selector`.
    static func rule(_ selector: String, in css: String) -> [String: String] {
        var declarations: [String: String] = [:]
        var rest = Substring(css)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let head = rest[..<open].split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            if head == selector {
                for declaration in rest[rest.index(after: open)..<close].split(separator: ";") {
                    let parts = declaration.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                    if parts.count == 2 { declarations[parts[0]] = parts[1] }
                }
            }
            rest = rest[rest.index(after: close)...]
        }
        return declarations
    }

    /// A style read from a rule's `font-size`, `line-height`, `font-weight` and `letter-spacing`,
    /// or its `font` shorthand (`600 15px/1 var(--font)`).
    static func style(_ declarations: [String: String]) -> TextStyle? {
        func pixels(_ text: String?) -> Double? { text.flatMap { $0.hasSuffix("px") ? Double($0.dropLast(2)) : nil } }
        if let font = declarations["font"] {
            let words = font.split(separator: " ")
            guard words.count >= 2, let weight = Int(words[0]) else { return nil }
            let sizes = words[1].split(separator: "/")
            guard let size = pixels(String(sizes[0])) else { return nil }
            let line = sizes.count == 2 ? (Double(sizes[1]).map { $0 * size } ?? pixels(String(sizes[1]))) : nil
            return line.map { TextStyle(size: size, weight: weight, lineHeight: $0) }
        }
        guard let size = pixels(declarations["font-size"]), let line = pixels(declarations["line-height"]) else { return nil }
        let weight = declarations["font-weight"].flatMap { Int($0) } ?? 400
        return TextStyle(size: size, weight: weight, lineHeight: line, letterSpacing: pixels(declarations["letter-spacing"]) ?? 0)
    }

    @Test(arguments: [
        ("#name", TextStyle.name), ("#tagline", .tagline), ("#step", .step), ("#mode-message", .step),
        ("#error-title", .errorTitle), ("#mode-title", .errorTitle), ("#error-detail", .errorDetail),
        ("#error-actions button", .button), ("#mode-warning", .modeWarning),
    ])
    func eachStyleIsItsRuleInThePagesCSS(selector: String, style: TextStyle) throws {
        let css = try String(contentsOfFile: Binaries.packageRoot + "/renderer/web/splash.css", encoding: .utf8)
        let declarations = Self.rule(selector, in: css)
        try #require(!declarations.isEmpty, "splash.css has no rule \(selector)")
        #expect(Self.style(declarations) == style, "\(selector): \(declarations)")
    }
}
