import SplashConfig
import SplashSupport
public import SplashTheme

/// Everything `splashd-web` serves over HTTP, read once at start: the page (its template with the
/// theme written in), its stylesheet and script, and the theme's files.
public struct WebSite: Sendable {
    /// A response body and its content type.
    public struct Resource: Sendable {
        public var bytes: [UInt8]
        public var contentType: String

        package init(bytes: [UInt8], contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
        }
    }

    /// Why the site could not be read.
    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The page's files in the web root.
    public static let pageFiles: [String: String] = [
        "index.html": "text/html; charset=utf-8", "splash.css": "text/css; charset=utf-8",
        "splash.js": "text/javascript; charset=utf-8",
    ]
    public let theme: Theme
    /// By path: `/`, `/splash.css`, `/splash.js`, `/theme/NAME`.
    public let resources: [String: Resource]

    /// A site of the given resources (the fuzz targets' and the tests').
    package init(theme: Theme, resources: [String: Resource]) {
        self.theme = theme
        self.resources = resources
    }

    /// Reads the page from `webRoot` and the theme (`ThemeLoader`) from `themeDirectory`;
    /// `firmwareLogo` is what the firmware published, for a theme with `logo = "firmware"` (served
    /// at `SplashPage.firmwareLogoPath`; without it the page shows the theme's `logo_fallback`).
    public init(webRoot: String, themeDirectory: String, firmwareLogo: FirmwareLogo? = nil) throws {
        let loaded: ThemeLoader.Loaded
        do {
            loaded = try ThemeLoader.load(directory: themeDirectory)
        } catch {
            throw LoadError(description: error.description)
        }
        var resources: [String: Resource] = [:]
        for (name, file) in loaded.files {
            resources["/theme/" + name] = Resource(bytes: file.bytes, contentType: file.contentType)
        }
        for (name, type) in Self.pageFiles {
            let path = webRoot + "/" + name
            let bytes: [UInt8]
            do {
                bytes = try FileSystem.readFile(path, limit: 1 << 20)
            } catch {
                throw LoadError(description: "cannot read \(path): \(error.reason)")
            }
            if name == "index.html" {
                let page = SplashPage.render(template: String(decoding: bytes, as: UTF8.self), theme: loaded.theme, firmware: firmwareLogo)
                resources["/"] = Resource(bytes: Array(page.utf8), contentType: type)
            } else {
                resources["/" + name] = Resource(bytes: bytes, contentType: type)
            }
        }
        if loaded.theme.firmwareLogo, let firmwareLogo {
            resources[SplashPage.firmwareLogoPath] = Resource(bytes: firmwareLogo.file, contentType: "image/bmp")
        }
        theme = loaded.theme
        self.resources = resources
    }
}
