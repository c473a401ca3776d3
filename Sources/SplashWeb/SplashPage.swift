import SplashConfig
import SplashCore
import SplashJSON
public import SplashTheme

/// The splash page as served: the page's template with the theme written into it.
///
/// The theme goes in three ways, so the first paint is already the theme's: its colors as CSS
/// custom properties in an inline `<style>` (the background among them), its texts into the
/// markup (HTML-escaped), and the whole theme as JSON in a non-executed `<script
/// type="application/json">` for the page's script (with `<`, `>` and `&` escaped, so no value
/// can close the element).
public enum SplashPage {
    /// Placeholders of `index.html`, each replaced once.
    enum Slot: String, CaseIterable {
        case style = "<!--splashd:style-->"
        case themeJSON = "<!--splashd:theme-->"
        case name = "{{name}}"
        case tagline = "{{tagline}}"
        case label = "{{label}}"
        case logo = "{{logo}}"
        case motion = "{{motion}}"
        case indicator = "{{indicator}}"
        case showProgress = "{{show_progress}}"
        case showStep = "{{show_step}}"
    }

    /// Where the bridge serves the firmware's logo (`logo = "firmware"`).
    public static let firmwareLogoPath = "/firmware-logo.bmp"

    /// `template` with `theme` written into it; `firmware`, the firmware's logo's place and size
    /// for a theme with `logo = "firmware"` on a machine that publishes one (its image at
    /// `firmwareLogoPath`).
    public static func render(template: String, theme: Theme, firmware: FirmwareLogo? = nil) -> String {
        var page = template
        let firmware = theme.firmwareLogo ? firmware : nil
        var css = style(for: theme)
        if let firmware {
            // At the firmware's place and size, one pixel a pixel, no entry animation; the texts
            // 24 px under it. (More specific than splash.css's rules, which come after.) The
            // script moves it for a display whose CSS pixel is not a device pixel, or where it
            // does not fit.
            css += "#splash #logo{left:\(firmware.x)px;top:\(firmware.y)px;width:\(firmware.width)px;height:\(firmware.height)px;"
                + "margin:0;border-radius:0;background:none;box-shadow:none;animation:none}"
                + "#splash #logo img{width:100%;height:100%;object-fit:fill;image-rendering:pixelated}"
                + "#splash #text{top:max(calc(50% + 44px),\(firmware.y + firmware.height + 24)px)}"
        }
        let values: [Slot: String] = [
            .style: "<style>\(css)</style>",
            .themeJSON: "<script id=\"splashd-theme\" type=\"application/json\">\(themeJSON(theme, firmware: firmware))</script>",
            .name: escapeHTML(theme.name),
            .tagline: escapeHTML(theme.tagline ?? ""),
            .label: escapeHTML("\(theme.name) splash screen, loading"),
            .logo: firmware != nil ? firmwareLogoPath : theme.logo.map { "/theme/" + escapeHTML($0) } ?? "",
            .motion: theme.motion == .reduce ? "reduce" : "auto",
            .indicator: theme.indicator.rawValue,
            .showProgress: theme.showProgress ? "true" : "false",
            .showStep: theme.showStep ? "true" : "false",
        ]
        for slot in Slot.allCases {
            page = page.replacing(slot.rawValue, with: values[slot] ?? "")
        }
        return page
    }

    /// The theme's palettes as CSS custom properties: light by default, dark under
    /// `prefers-color-scheme: dark` when the appearance is `auto`.
    static func style(for theme: Theme) -> String {
        func properties(_ palette: Theme.Palette) -> String {
            let circle = palette.logoBackground != "transparent"
            return "--bg:\(palette.background);--fg:\(palette.foreground);--fg2:\(palette.secondary);"
                + "--logo-bg:\(palette.logoBackground);--accent:\(palette.indicator);--error:\(palette.error);"
                + "--logo-shadow:\(circle ? "0 8px 24px rgba(0,0,0,.15)" : "none");--logo-image-size:\(circle ? "60%" : "100%");"
        }
        let font = theme.font.map { "\"\($0)\"," } ?? ""
        var css = ":root{--font:\(font)system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;"
        switch theme.appearance {
        case .light, .auto: css += properties(theme.light) + "color-scheme:light}"
        case .dark: css += properties(theme.dark) + "color-scheme:dark}"
        }
        if theme.appearance == .auto {
            css += "@media (prefers-color-scheme: dark){:root{\(properties(theme.dark))color-scheme:dark}}"
        }
        css += "html,body{background:var(--bg)}"
        if let family = theme.font, let file = theme.fontFile {
            css += "@font-face{font-family:\"\(family)\";src:url(\"/theme/\(file)\");font-weight:100 900;font-display:block}"
        }
        return css
    }

    /// The theme as the page's script reads it.
    public static func themeJSON(_ theme: Theme, firmware: FirmwareLogo? = nil) -> String {
        var w = JSONWriter()
        w.object { w in
            if let firmware {
                w.key("firmware_logo")
                w.object { w in
                    w.key("x"); w.int(Int64(firmware.x))
                    w.key("y"); w.int(Int64(firmware.y))
                    w.key("width"); w.int(Int64(firmware.width))
                    w.key("height"); w.int(Int64(firmware.height))
                }
            }
            w.key("name"); w.string(theme.name)
            w.key("tagline"); w.string(theme.tagline)
            w.key("taglines"); w.array { w in for line in theme.taglines { w.string(line) } }
            w.key("errors")
            w.object { w in
                for code in Theme.errorCodes {
                    guard let text = theme.errorTexts[code] else { continue }
                    w.key(code)
                    w.object { w in
                        w.key("title"); w.string(text.title)
                        w.key("detail"); w.string(text.detail)
                    }
                }
            }
            // The update and shutdown views' words ([update], [shutdown]).
            w.key("modes")
            w.object { w in
                let texts = theme.modeTexts
                w.key("updating"); w.string(texts.updating)
                w.key("warning"); w.string(texts.warning)
                w.key("succeeded"); w.string(texts.succeeded)
                w.key("failed"); w.string(texts.failed)
                w.key("poweroff"); w.string(texts.poweroff)
                w.key("reboot"); w.string(texts.reboot)
            }
            w.key("transitions")
            w.object { w in
                w.key("exit"); w.string(theme.transitions.exit.rawValue)
                w.key("home"); w.string(theme.transitions.home.rawValue)
                w.key("onboarding"); w.string(theme.transitions.onboarding.rawValue)
                w.key("login"); w.string(theme.transitions.login.rawValue)
            }
            w.key("logo"); w.string(theme.logo.map { "/theme/\($0)" })
            w.key("appearance"); w.string(theme.appearance.rawValue)
            w.key("motion"); w.string(theme.motion.rawValue)
            w.key("indicator"); w.string(theme.indicator.rawValue)
            w.key("show_progress"); w.bool(theme.showProgress)
            w.key("show_step"); w.bool(theme.showStep)
            w.key("app_step"); w.string(theme.appStep)
            w.key("destinations")
            w.object { w in
                w.key("home"); w.string(theme.destinations.home)
                w.key("onboarding"); w.string(theme.destinations.onboarding)
                w.key("login"); w.string(theme.destinations.login)
            }
        }
        var out = ""
        for scalar in w.string.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `&`, `<`, `>`, `"` and `'` as character references (`Markup.escape`).
    public static func escapeHTML(_ text: String) -> String { Markup.escape(text) }
}
