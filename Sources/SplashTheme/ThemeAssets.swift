/// The files a theme may ship beside `theme.toml` and the page may load: their names, and the
/// content types they are served as.
public enum ThemeAssets {
    /// Logo files by extension, with the content type they are served as.
    public static let imageTypes: [String: String] = [
        "svg": "image/svg+xml", "png": "image/png", "webp": "image/webp", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif",
    ]

    /// Font files a theme may ship beside its logo (referenced from nowhere but served).
    public static let fontTypes: [String: String] = ["woff2": "font/woff2", "woff": "font/woff", "otf": "font/otf", "ttf": "font/ttf"]

    /// The content type a theme file is served as, from its name; nil for a name that is not a
    /// plain file name with a known extension.
    public static func type(of name: String) -> String? {
        // Letters, digits, `.`, `-` and `_` only: a name goes into a URL, an HTML attribute and CSS.
        guard !name.isEmpty, !name.hasPrefix("."), name.utf8.count <= 255, isPlain(name, also: UInt8(ascii: ".")) else { return nil }
        guard let dot = name.lastIndex(of: ".") else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        return imageTypes[ext] ?? fontTypes[ext]
    }

    /// Letters, digits, `-`, `_` and `also` only.
    static func isPlain(_ text: String, also: UInt8) -> Bool {
        text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), also:
                true
            default: false
            }
        }
    }
}
