/// A text's style as the page sets it in renderer/web/splash.css, so both renderers lay a text
/// out alike: `TextStyleTests` (SplashDrawTests) holds each one equal to its rule there.
struct TextStyle: Hashable {
    var size: Double
    var weight: Int
    var lineHeight: Double
    var letterSpacing: Double = 0

    /// `#name`.
    static let name = TextStyle(size: 32, weight: 700, lineHeight: 40, letterSpacing: -0.5)
    /// `#tagline`.
    static let tagline = TextStyle(size: 14, weight: 400, lineHeight: 20)
    /// `#step`, and the update's message (`#mode-message`).
    static let step = TextStyle(size: 13, weight: 400, lineHeight: 18)
    /// `#error-title`, and the update's or shutdown's title (`#mode-title`).
    static let errorTitle = TextStyle(size: 16, weight: 500, lineHeight: 22)
    /// `#error-detail`.
    static let errorDetail = TextStyle(size: 14, weight: 400, lineHeight: 20)
    /// `#error-actions button` (`font: 600 15px/1`).
    static let button = TextStyle(size: 15, weight: 600, lineHeight: 15)
    /// `#mode-warning`.
    static let modeWarning = TextStyle(size: 14, weight: 500, lineHeight: 20)
}
