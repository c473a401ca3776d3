import SplashDraw
import SplashTheme
import SplashScene

/// A theme as the renderers read it: `theme.toml` (ThemeLoader), and a logo's bytes through what
/// the native renderer's drawing child runs (`LogoRaster.draw`: a PNG's structure, CRCs and size
/// checked by `PNGHeader` before cairo decodes it; librsvg for SVG), drawn once if accepted. The
/// child's CPU and memory budget is libFuzzer's `-timeout` and `-rss_limit_mb` here.
enum FuzzTheme {
    /// The first byte picks what the rest is: 0 `theme.toml`, 1 an SVG logo, 2 a PNG logo.
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let kind = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        switch kind % 3 {
        case 0:
            _ = try? ThemeLoader.parse(bytes: rest, file: "theme.toml", files: ["logo.svg", "logo.png"])
        default:
            let (name, type) = kind % 3 == 1 ? ("logo.svg", "image/svg+xml") : ("logo.png", "image/png")
            var theme = Theme(name: "fuzz")
            theme.logo = name
            guard let painter = try? SplashPainter(
                theme: theme, files: [name: ThemeLoader.File(bytes: rest, contentType: type)], directory: "/fuzz")
            else { return }
            painter.draw(SplashView(), at: .init(sinceShown: 2000), into: SplashImage(width: 160, height: 240))
        }
    }
}
