public import SplashConfig
import SplashCore
import SplashProtocol
import SplashSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a theme directory (`theme.toml` and the files it names) into a `Theme`.
///
/// Every problem is reported with file and line, as `splashd check` does for configs, and all of
/// them at once. Colors must be CSS colors of a closed grammar (`#RGB`, `#RGBA`, `#RRGGBB`,
/// `#RRGGBBAA`, `rgb()`/`rgba()` of numbers, `transparent`), URLs absolute `http`/`https`, file
/// names plain (`[A-Za-z0-9._-]`): nothing in a theme can reach the page as markup.
public enum ThemeLoader {
    /// The file a theme directory holds.
    public static let fileName = "theme.toml"
    /// The largest `theme.toml` read.
    public static let maximumFileSize = 256 * 1024
    /// The largest logo or other theme file served.
    public static let maximumAssetSize = 2 * 1024 * 1024
    /// The longest `name` or `tagline`, in characters.
    public static let maximumTextLength = 200
    /// The most the theme's files may weigh together.
    public static let maximumThemeBytes = 8 * 1024 * 1024

    /// A file of the theme that the page may load (an image or a font), with its content type.
    public struct File: Sendable, Equatable {
        public var bytes: [UInt8]
        public var contentType: String

        public init(bytes: [UInt8], contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
        }
    }

    /// A theme and its files by name: every image and font in the directory, each a regular file
    /// (not a symbolic link: a theme cannot serve /etc/passwd) of at most 2 MiB, 8 MiB in all.
    /// `splashd-web check` and the server both read a theme with this, each file once, so a theme
    /// that passes the check also starts.
    public struct Loaded: Sendable {
        public var theme: Theme
        public var files: [String: File]
    }

    /// Loads `directory/theme.toml` and the theme's files.
    public static func load(directory: String) throws(ConfigError) -> Loaded {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let path = base + fileName
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: maximumFileSize, followLinks: false)
        } catch {
            throw ConfigError(file: path, message: "cannot read theme: \(error.reason)")
        }
        var files: [String: File] = [:]
        var total = 0
        let names: [String]
        do {
            names = try FileSystem.contentsOfDirectory(directory)
        } catch {
            throw ConfigError(file: directory, message: "cannot list the theme's directory: \(error.reason)")
        }
        for name in names {
            guard let type = ThemeAssets.type(of: name) else { continue }
            let file: [UInt8]
            do {
                file = try FileSystem.readFile(base + name, limit: maximumAssetSize, followLinks: false)
            } catch {
                throw ConfigError(file: base + name, message: "cannot read theme file: \(error.reason)")
            }
            total += file.count
            guard total <= maximumThemeBytes else {
                throw ConfigError(file: directory, message: "the theme's files pass \(maximumThemeBytes >> 20) MiB in all")
            }
            files[name] = File(bytes: file, contentType: type)
        }
        return Loaded(theme: try parse(bytes: bytes, file: path, files: Set(files.keys)), files: files)
    }

    /// Parses a `theme.toml` given as bytes; `files` are the names of the theme's image and font
    /// files, which `logo` and `font_file` must be among.
    /// The keys a `theme.toml` may have at its top level.
    public static let topLevelKeys: Set<String> = [
        "name", "tagline", "logo", "logo_fallback", "font", "font_file", "appearance", "motion", "indicator", "show_progress",
        "show_step", "app_step", "rotate", "colors", "destinations", "taglines", "transitions", "errors", "update", "shutdown",
    ]

    public static func parse(bytes: [UInt8], file: String, files: Set<String>) throws(ConfigError) -> Theme {
        let root = try TableReader.parse(bytes: bytes, file: file)
        var problems: [ConfigError.Problem] = []
        problems.collect(
            try root.checkKeys(topLevelKeys)
        )
        var theme = Theme(name: "")
        if let name = problems.collect(try text(root, "name")) {
            if let name { theme.name = name } else { problems.append(root.error(at: nil, "missing key \"name\"").problems[0]) }
        }
        theme.tagline = problems.collect(try text(root, "tagline")) ?? nil
        theme.taglines = (problems.collect(try taglines(root, alongside: theme.tagline)) ?? nil) ?? []
        if (try? root.string("logo")) == FirmwareLogo.themeValue {
            theme.firmwareLogo = true
            theme.logo = problems.collect(try logo(root, "logo_fallback", files: files)) ?? nil
        } else {
            theme.logo = problems.collect(try logo(root, "logo", files: files)) ?? nil
            if root.has("logo_fallback") {
                problems.append(root.error(at: "logo_fallback", "logo_fallback is for logo = \"firmware\": the logo drawn where the firmware publishes none").problems[0])
            }
        }
        theme.font = problems.collect(try font(root)) ?? nil
        theme.fontFile = problems.collect(try fontFile(root, files: files, family: theme.font)) ?? nil
        theme.appearance = (problems.collect(try choice(root, "appearance", Theme.Appearance.self)) ?? nil) ?? .auto
        theme.motion = (problems.collect(try choice(root, "motion", Theme.Motion.self)) ?? nil) ?? .auto
        theme.indicator = (problems.collect(try choice(root, "indicator", Theme.Indicator.self)) ?? nil) ?? .dots
        theme.showProgress = (problems.collect(try root.bool("show_progress")) ?? nil) ?? false
        theme.showStep = (problems.collect(try root.bool("show_step")) ?? nil) ?? false
        theme.appStep = problems.collect(try appStep(root)) ?? nil
        if let rotate = problems.collect(try root.int("rotate")) ?? nil {
            if [0, 90, 180, 270].contains(rotate) {
                theme.rotate = rotate
            } else {
                problems.append(root.error(at: "rotate", "rotate must be 0, 90, 180 or 270 (degrees, clockwise)").problems[0])
            }
        }
        if let colors = problems.collect(try root.table("colors")) ?? nil {
            problems.collect(try colors.checkKeys(["light", "dark"]))
            if let light = problems.collect(try colors.table("light", suffix: " in [colors.light]")) ?? nil {
                theme.light = palette(light, base: Theme.neutralLight, problems: &problems)
            }
            if let dark = problems.collect(try colors.table("dark", suffix: " in [colors.dark]")) ?? nil {
                theme.dark = palette(dark, base: Theme.neutralDark, problems: &problems)
            }
        }
        if let table = problems.collect(try root.table("destinations", suffix: " in [destinations]")) ?? nil {
            problems.collect(try table.checkKeys(["home", "onboarding", "login"]))
            theme.destinations.home = problems.collect(try url(table, "home")) ?? nil
            theme.destinations.onboarding = problems.collect(try url(table, "onboarding")) ?? nil
            theme.destinations.login = problems.collect(try url(table, "login")) ?? nil
        }
        if let table = problems.collect(try root.table("transitions", suffix: " in [transitions]")) ?? nil {
            problems.collect(try table.checkKeys(["exit", "home", "onboarding", "login"]))
            if let exit = problems.collect(try choice(table, "exit", Theme.Exit.self)) ?? nil {
                if exit == .reveal && theme.logo == nil {
                    problems.append(table.error(at: "exit", "exit = \"reveal\" needs a logo: the hole is the logo's shape").problems[0])
                } else {
                    theme.transitions.exit = exit
                }
            }
            if let entry = problems.collect(try choice(table, "home", Theme.Entry.self)) ?? nil { theme.transitions.home = entry }
            if let entry = problems.collect(try choice(table, "onboarding", Theme.Entry.self)) ?? nil { theme.transitions.onboarding = entry }
            if let entry = problems.collect(try choice(table, "login", Theme.Entry.self)) ?? nil { theme.transitions.login = entry }
        }
        if let table = problems.collect(try root.table("errors", suffix: " in [errors]")) ?? nil {
            problems.collect(try table.checkKeys(Set(Theme.errorCodes)))
            for code in Theme.errorCodes {
                guard let texts = problems.collect(try table.table(code, suffix: " in [errors.\(code)]")) ?? nil else { continue }
                problems.collect(try texts.checkKeys(["title", "detail"]))
                let title = problems.collect(try text(texts, "title")) ?? nil
                let detail = problems.collect(try text(texts, "detail")) ?? nil
                theme.errorTexts[code] = Theme.ErrorText(title: title, detail: detail)
            }
        }
        if let table = problems.collect(try root.table("update", suffix: " in [update]")) ?? nil {
            problems.collect(try table.checkKeys(["title", "warning", "succeeded", "failed"]))
            if let text = problems.collect(try text(table, "title")) ?? nil { theme.modeTexts.updating = text }
            if let text = problems.collect(try text(table, "warning")) ?? nil { theme.modeTexts.warning = text }
            if let text = problems.collect(try text(table, "succeeded")) ?? nil { theme.modeTexts.succeeded = text }
            if let text = problems.collect(try text(table, "failed")) ?? nil { theme.modeTexts.failed = text }
        }
        if let table = problems.collect(try root.table("shutdown", suffix: " in [shutdown]")) ?? nil {
            problems.collect(try table.checkKeys(["poweroff", "reboot"]))
            if let text = problems.collect(try text(table, "poweroff")) ?? nil { theme.modeTexts.poweroff = text }
            if let text = problems.collect(try text(table, "reboot")) ?? nil { theme.modeTexts.reboot = text }
        }
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return theme
    }

    /// The most taglines a theme may have (Yula's presenter has seventeen).
    public static let maximumTaglines = 64

    private static func taglines(_ table: TableReader, alongside tagline: String?) throws(ConfigError) -> [String]? {
        guard let list = try table.strings("taglines") else { return nil }
        guard tagline == nil else { throw table.error(at: "taglines", "taglines and tagline cannot both be set: keep one") }
        guard (1...maximumTaglines).contains(list.count) else {
            throw table.error(at: "taglines", "taglines must have 1 to \(maximumTaglines) entries")
        }
        for text in list {
            if let problem = textProblem(text) { throw table.error(at: "taglines", "each of taglines \(problem)") }
        }
        return list
    }

    private static func palette(_ table: TableReader, base: Theme.Palette, problems: inout [ConfigError.Problem]) -> Theme.Palette {
        problems.collect(try table.checkKeys(["background", "foreground", "secondary", "logo_background", "indicator", "error"]))
        var palette = base
        func read(_ key: String, into path: WritableKeyPath<Theme.Palette, ThemeColor>) {
            if let value = problems.collect(try color(table, key)) ?? nil { palette[keyPath: path] = value }
        }
        read("background", into: \.background)
        read("foreground", into: \.foreground)
        read("secondary", into: \.secondary)
        read("logo_background", into: \.logoBackground)
        read("indicator", into: \.indicator)
        read("error", into: \.error)
        return palette
    }

    private static func text(_ table: TableReader, _ key: String) throws(ConfigError) -> String? {
        guard let text = try table.string(key) else { return nil }
        if let problem = textProblem(text) { throw table.error(at: key, "\(key) \(problem)") }
        return text
    }

    /// The most bytes of UTF-8 a theme's text may have: `maximumTextLength` characters of up to
    /// four bytes. Characters alone let 120 × ("Z" + 1000 combining marks), 240 KB, through as
    /// 120 characters, and a frame then took 0.8 s to lay out.
    public static let maximumTextBytes = 4 * maximumTextLength

    /// What is wrong with a theme's text (its name, a tagline, an error's words), or nil. Its
    /// characters follow `DisplayText`, the rule every text a state carries is cleaned to: no
    /// control characters (C0, DEL and C1: U+0085 NEL split a name into lines on KMS), no line
    /// or paragraph separators, no bidirectional overrides.
    static func textProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.count <= maximumTextLength, text.utf8.count <= maximumTextBytes else {
            return "must have 1 to \(maximumTextLength) characters and at most \(maximumTextBytes) bytes"
        }
        guard !DisplayText.isRefused(text) else { return DisplayText.problem }
        return nil
    }

    private static func choice<T: RawRepresentable & CaseIterable>(_ table: TableReader, _ key: String, _: T.Type) throws(ConfigError) -> T?
    where T.RawValue == String {
        guard let text = try table.string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw table.error(at: key, "\(key) must be one of \(allowed), not \"\(text)\"")
        }
        return value
    }

    private static func logo(_ table: TableReader, _ key: String, files: Set<String>) throws(ConfigError) -> String? {
        guard let name = try table.string(key) else { return nil }
        guard let type = ThemeAssets.type(of: name), ThemeAssets.imageTypes.values.contains(type) else {
            let allowed = ThemeAssets.imageTypes.keys.sorted().map { "." + $0 }.joined(separator: ", ")
            let firmware = key == "logo" ? ", or \"\(FirmwareLogo.themeValue)\"" : ""
            throw table.error(at: key, "\(key) must be a file name beside theme.toml ending in \(allowed)\(firmware)")
        }
        try present(table, key, name: name, files: files)
        return name
    }

    private static func fontFile(_ table: TableReader, files: Set<String>, family: String?) throws(ConfigError) -> String? {
        guard let name = try table.string("font_file") else { return nil }
        guard let type = ThemeAssets.type(of: name), ThemeAssets.fontTypes.values.contains(type) else {
            throw table.error(at: "font_file", "font_file must be a file name beside theme.toml ending in .woff2, .woff, .otf or .ttf")
        }
        guard family != nil else { throw table.error(at: "font_file", "font_file needs font, the family name it is used under") }
        try present(table, "font_file", name: name, files: files)
        return name
    }

    private static func present(_ table: TableReader, _ key: String, name: String, files: Set<String>) throws(ConfigError) {
        guard files.contains(name) else { throw table.error(at: key, "\(key) \"\(name)\" is not in the theme's directory") }
    }

    private static func font(_ table: TableReader) throws(ConfigError) -> String? {
        guard let font = try table.string("font") else { return nil }
        guard ThemeAssets.isPlain(font, also: UInt8(ascii: " ")), !font.isEmpty, font.count <= 64 else {
            throw table.error(at: "font", "font must be a font family name of letters, digits, spaces, - and _")
        }
        return font
    }

    private static func appStep(_ table: TableReader) throws(ConfigError) -> String? {
        guard let step = try table.string("app_step") else { return nil }
        guard !step.isEmpty, step.utf8.count <= 256, !DisplayText.isRefused(step) else {
            throw table.error(at: "app_step", "app_step must be a step id: 1 to 256 bytes, no control characters")
        }
        return step
    }

    private static func color(_ table: TableReader, _ key: String) throws(ConfigError) -> ThemeColor? {
        guard let text = try table.string(key) else { return nil }
        guard let color = ThemeColor(css: text) else {
            throw table.error(
                at: key,
                "\(table.keyPrefix)\(key)\(table.suffix) must be a color: #RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(R, G, B), rgba(R, G, B, A) or transparent, not \"\(text)\""
            )
        }
        return color
    }

    private static func url(_ table: TableReader, _ key: String) throws(ConfigError) -> String? {
        guard let text = try table.string(key) else { return nil }
        let scheme = text.hasPrefix("http://") || text.hasPrefix("https://")
        let clean = text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "<" && $0 != ">" && $0 != "\\" }
        guard scheme, clean, text.count <= 2048 else {
            throw table.error(at: key, "\(key) must be an absolute http:// or https:// URL without spaces, quotes or angle brackets")
        }
        return text
    }

    /// The least contrast the error's title needs on the background: 3:1 (WCAG 2.1, 1.4.3 for
    /// large or bold text and 1.4.11 for the ⊗ beside it).
    public static let minimumErrorContrast = 3.0

    /// What `splashd-web check` warns about without refusing the theme: an error colour of too
    /// little contrast on its palette's background (each palette the appearance can show).
    public static func warnings(for theme: Theme) -> [String] {
        var palettes: [(String, Theme.Palette)] = []
        if theme.appearance != .dark { palettes.append(("[colors.light]", theme.light)) }
        if theme.appearance != .light { palettes.append(("[colors.dark]", theme.dark)) }
        return palettes.compactMap { name, palette in
            guard let ratio = palette.error.contrast(on: palette.background), ratio < minimumErrorContrast else { return nil }
            let shown = (ratio * 10).rounded(.down) / 10
            return "error \(palette.error) in \(name) has a contrast of \(shown):1 on the background \(palette.background); "
                + "the error's title needs \(Int(minimumErrorContrast)):1 (WCAG 1.4.3, large text)"
        }
    }
}
