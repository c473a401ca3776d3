import SplashCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a theme directory (`theme.toml` and the files it names) into a `Theme`.
///
/// Every problem is reported with file and line, as `splashd check` does for configs, and all of
/// them at once. Colors must be CSS colors of a closed grammar (`#RGB`, `#RRGGBB`, `#RRGGBBAA`,
/// `rgb()`/`rgba()` of numbers, `transparent`), URLs absolute `http`/`https`, the logo a regular
/// file beside `theme.toml` of at most 2 MiB: nothing in a theme can reach the page as markup.
public enum ThemeLoader {
    /// The file a theme directory holds.
    public static let fileName = "theme.toml"
    /// The largest `theme.toml` read.
    public static let maximumFileSize = 256 * 1024
    /// The largest logo or other theme file served.
    public static let maximumAssetSize = 2 * 1024 * 1024
    /// The longest `name` or `tagline`, in characters.
    public static let maximumTextLength = 200
    /// Logo files by extension, with the content type they are served as.
    public static let imageTypes: [String: String] = [
        "svg": "image/svg+xml", "png": "image/png", "webp": "image/webp", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif",
    ]

    /// Loads `directory/theme.toml`.
    public static func load(directory: String) throws(ConfigError) -> Theme {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: maximumFileSize)
        } catch {
            throw ConfigError(file: path, message: "cannot read theme: \(error.reason)")
        }
        return try parse(bytes: bytes, file: path, directory: directory)
    }

    /// Parses a `theme.toml` given as bytes; `directory` is where the logo is looked for.
    public static func parse(bytes: [UInt8], file: String, directory: String) throws(ConfigError) -> Theme {
        let root = try TableReader.parse(bytes: bytes, file: file)
        var problems: [ConfigError.Problem] = []
        problems.collect(
            try root.checkKeys([
                "name", "tagline", "logo", "font", "font_file", "appearance", "motion", "indicator", "show_progress",
                "show_step", "app_step", "colors", "destinations",
            ])
        )
        var theme = Theme(name: "")
        if let name = problems.collect(try text(root, "name")) {
            if let name { theme.name = name } else { problems.append(root.error(at: nil, "missing key \"name\"").problems[0]) }
        }
        theme.tagline = problems.collect(try text(root, "tagline")) ?? nil
        theme.logo = problems.collect(try logo(root, directory: directory)) ?? nil
        theme.font = problems.collect(try font(root)) ?? nil
        theme.fontFile = problems.collect(try fontFile(root, directory: directory, family: theme.font)) ?? nil
        theme.appearance = (problems.collect(try choice(root, "appearance", Theme.Appearance.self)) ?? nil) ?? .auto
        theme.motion = (problems.collect(try choice(root, "motion", Theme.Motion.self)) ?? nil) ?? .auto
        theme.indicator = (problems.collect(try choice(root, "indicator", Theme.Indicator.self)) ?? nil) ?? .dots
        theme.showProgress = (problems.collect(try root.bool("show_progress")) ?? nil) ?? false
        theme.showStep = (problems.collect(try root.bool("show_step")) ?? nil) ?? false
        theme.appStep = problems.collect(try appStep(root)) ?? nil
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
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return theme
    }

    private static func palette(_ table: TableReader, base: Theme.Palette, problems: inout [ConfigError.Problem]) -> Theme.Palette {
        problems.collect(try table.checkKeys(["background", "foreground", "secondary", "logo_background", "indicator"]))
        var palette = base
        func read(_ key: String, into path: WritableKeyPath<Theme.Palette, String>) {
            if let value = problems.collect(try color(table, key)) ?? nil { palette[keyPath: path] = value }
        }
        read("background", into: \.background)
        read("foreground", into: \.foreground)
        read("secondary", into: \.secondary)
        read("logo_background", into: \.logoBackground)
        read("indicator", into: \.indicator)
        return palette
    }

    private static func text(_ table: TableReader, _ key: String) throws(ConfigError) -> String? {
        guard let text = try table.string(key) else { return nil }
        guard !text.isEmpty, text.count <= maximumTextLength else {
            throw table.error(at: key, "\(key) must have 1 to \(maximumTextLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw table.error(at: key, "\(key) must not contain control characters")
        }
        return text
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

    private static func logo(_ table: TableReader, directory: String) throws(ConfigError) -> String? {
        guard let name = try table.string("logo") else { return nil }
        guard let type = assetType(name), imageTypes.values.contains(type) else {
            let allowed = imageTypes.keys.sorted().map { "." + $0 }.joined(separator: ", ")
            throw table.error(at: "logo", "logo must be a file name beside theme.toml ending in \(allowed)")
        }
        try readable(table, "logo", name: name, directory: directory)
        return name
    }

    private static func fontFile(_ table: TableReader, directory: String, family: String?) throws(ConfigError) -> String? {
        guard let name = try table.string("font_file") else { return nil }
        guard let type = assetType(name), fontTypes.values.contains(type) else {
            throw table.error(at: "font_file", "font_file must be a file name beside theme.toml ending in .woff2, .woff, .otf or .ttf")
        }
        guard family != nil else { throw table.error(at: "font_file", "font_file needs font, the family name it is used under") }
        try readable(table, "font_file", name: name, directory: directory)
        return name
    }

    private static func readable(_ table: TableReader, _ key: String, name: String, directory: String) throws(ConfigError) {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        do {
            _ = try FileSystem.readFile(path, limit: maximumAssetSize)
        } catch {
            throw table.error(at: key, "cannot read \(key) \"\(name)\": \(error.reason)")
        }
    }

    private static func font(_ table: TableReader) throws(ConfigError) -> String? {
        guard let font = try table.string("font") else { return nil }
        let allowed = font.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard allowed, !font.isEmpty, font.count <= 64 else {
            throw table.error(at: "font", "font must be a font family name of letters, digits, spaces, - and _")
        }
        return font
    }

    private static func appStep(_ table: TableReader) throws(ConfigError) -> String? {
        guard let step = try table.string("app_step") else { return nil }
        guard !step.isEmpty, step.utf8.count <= 256, !step.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw table.error(at: "app_step", "app_step must be a step id: 1 to 256 bytes, no control characters")
        }
        return step
    }

    private static func color(_ table: TableReader, _ key: String) throws(ConfigError) -> String? {
        guard let text = try table.string(key) else { return nil }
        guard isColor(text) else {
            throw table.error(
                at: key,
                "\(table.keyPrefix)\(key)\(table.suffix) must be a color: #RGB, #RGBA, #RRGGBB, #RRGGBBAA, rgb(R, G, B), rgba(R, G, B, A) or transparent, not \"\(text)\""
            )
        }
        return text
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

    /// Whether `text` is a CSS color of the grammar themes may use.
    public static func isColor(_ text: String) -> Bool {
        if text == "transparent" { return true }
        let bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "#") {
            let digits = bytes.dropFirst()
            return [3, 4, 6, 8].contains(digits.count) && digits.allSatisfy(isHexDigit)
        }
        for (prefix, count) in [("rgb(", 3), ("rgba(", 4)] where text.hasPrefix(prefix) && text.hasSuffix(")") {
            let inner = text.dropFirst(prefix.count).dropLast()
            let parts = inner.split(separator: ",", omittingEmptySubsequences: false)
            return parts.count == count && parts.allSatisfy { isNumber($0.trimmingSpaces) }
        }
        return false
    }

    /// The content type a theme file is served as, from its name; nil for a name that is not a
    /// plain file name with a known extension.
    public static func assetType(_ name: String) -> String? {
        // Letters, digits, `.`, `-` and `_` only: a name goes into a URL, an HTML attribute and CSS.
        guard !name.isEmpty, !name.hasPrefix("."), name.utf8.count <= 255 else { return nil }
        let plain = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard plain else { return nil }
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        return imageTypes[ext] ?? fontTypes[ext]
    }

    /// Font files a theme may ship beside its logo (referenced from nowhere but served).
    public static let fontTypes: [String: String] = ["woff2": "font/woff2", "woff": "font/woff", "otf": "font/otf", "ttf": "font/ttf"]

    /// `12`, `0.8`, `.5`, `50%`: digits with at most one point, then an optional `%`.
    private static func isNumber(_ text: Substring) -> Bool {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: "%") { bytes.removeLast() }
        let digits = bytes.filter { $0 >= 0x30 && $0 <= 0x39 }.count
        let points = bytes.filter { $0 == UInt8(ascii: ".") }.count
        return digits > 0 && digits <= 6 && points <= 1 && digits + points == bytes.count
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
