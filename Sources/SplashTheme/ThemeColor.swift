// `pow` from the C library: Foundation would link ICU's 37 MB of data into both renderers
// (issue 50), and FoundationEssentials has no `pow`.
import Glibc

/// A colour of the theme grammar, parsed once: its CSS text, which the page gets as the theme
/// wrote it, and its channels, which the native renderer hands to cairo.
///
/// The grammar is closed (`#RGB`, `#RGBA`, `#RRGGBB`, `#RRGGBBAA`, `rgb()` / `rgba()` of numbers
/// or percentages, `transparent`), so a colour can go into CSS as it is: nothing in it is markup.
/// Tests/browser/css_colors.tsv holds it against what Chromium's CSS accepts.
public struct ThemeColor: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Red, green and blue (0–255) and alpha (0–1).
    public struct RGBA: Sendable, Hashable {
        public var red, green, blue, alpha: Double

        public init(red: Double, green: Double, blue: Double, alpha: Double) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
    }

    /// As the theme wrote it.
    public let css: String
    /// Its channels; nil for `transparent`.
    public let rgba: RGBA?

    /// `transparent`: no circle behind the logo, nothing drawn.
    public static let transparent: ThemeColor = "transparent"

    /// The colour `css` names; nil when it is not of the grammar.
    public init?(css: String) {
        guard Self.isColor(css) else { return nil }
        self.css = css
        rgba = css == "transparent" ? nil : Self.channels(css)
    }

    /// A colour written in the code (the default palettes, tests); it must be of the grammar.
    public init(stringLiteral value: String) {
        guard let color = ThemeColor(css: value) else { preconditionFailure("\(value) is not a theme colour") }
        self = color
    }

    public var description: String { css }

    /// WCAG 2.1's contrast ratio of this colour drawn on `background` (a translucent colour
    /// composited over it); nil when the background is not opaque, or either is `transparent`.
    public func contrast(on background: ThemeColor) -> Double? {
        guard let back = background.rgba, back.alpha == 1, let front = rgba else { return nil }
        func mix(_ f: Double, _ b: Double) -> Double { f * front.alpha + b * (1 - front.alpha) }
        let composed = (mix(front.red, back.red), mix(front.green, back.green), mix(front.blue, back.blue))
        func luminance(_ c: (Double, Double, Double)) -> Double {
            func linear(_ v: Double) -> Double {
                let s = v / 255
                return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2)
        }
        let a = luminance(composed), b = luminance((back.red, back.green, back.blue))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// Whether `text` is a CSS colour of the grammar themes may use.
    public static func isColor(_ text: String) -> Bool {
        if text == "transparent" { return true }
        let bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "#") {
            let digits = bytes.dropFirst()
            return [3, 4, 6, 8].contains(digits.count) && digits.allSatisfy(isHexDigit)
        }
        for (prefix, count) in [("rgb(", 3), ("rgba(", 4)] where text.hasPrefix(prefix) && text.hasSuffix(")") {
            let inner = text.dropFirst(prefix.count).dropLast()
            let parts = inner.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
            // CSS's legacy rgb(): the three channels all percentages or all numbers; the alpha
            // either (tested against Chromium's CSS.supports: Tests/browser/css_colors.tsv).
            let percents = parts.prefix(3).filter { $0.hasSuffix("%") }.count
            return parts.count == count && parts.allSatisfy(isNumber) && (percents == 0 || percents == 3)
        }
        return false
    }

    /// The channels of a colour of the grammar other than `transparent`.
    private static func channels(_ text: String) -> RGBA? {
        if text.hasPrefix("#") {
            let digits = Array(text.dropFirst())
            let wide = digits.count >= 6
            let width = wide ? 2 : 1
            var values: [Double] = []
            for index in stride(from: 0, to: digits.count, by: width) {
                let part = String(digits[index..<(index + width)])
                guard let value = Int(wide ? part : part + part, radix: 16) else { return nil }
                values.append(Double(value))
            }
            return RGBA(red: values[0], green: values[1], blue: values[2], alpha: values.count == 4 ? values[3] / 255 : 1)
        }
        let inner = text.drop { $0 != "(" }.dropFirst().dropLast()
        let parts = inner.split(separator: ",").map { $0.trimmingSpaces }
        func channel(_ part: Substring, scale: Double) -> Double? {
            if part.hasSuffix("%") { return Double(part.dropLast()).map { $0 / 100 * scale } }
            return Double(part)
        }
        guard parts.count >= 3, let r = channel(parts[0], scale: 255), let g = channel(parts[1], scale: 255),
            let b = channel(parts[2], scale: 255)
        else { return nil }
        let alpha = parts.count == 4 ? channel(parts[3], scale: 1) : 1
        return RGBA(red: min(r, 255), green: min(g, 255), blue: min(b, 255), alpha: min(max(alpha ?? 1, 0), 1))
    }

    /// `12`, `0.8`, `.5`, `50%`: digits with at most one point and a digit after it (CSS has
    /// no `5.`), then an optional `%`.
    private static func isNumber(_ text: Substring) -> Bool {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: "%") { bytes.removeLast() }
        let digits = bytes.filter { $0 >= 0x30 && $0 <= 0x39 }.count
        let points = bytes.filter { $0 == UInt8(ascii: ".") }.count
        return digits > 0 && digits <= 6 && points <= 1 && digits + points == bytes.count && bytes.last != UInt8(ascii: ".")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var slice = self
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return slice
    }
}
