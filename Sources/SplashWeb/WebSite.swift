public import SplashConfig
import SplashCore

#if canImport(Glibc)
    import Glibc
#endif

/// Everything `splashd-web` serves over HTTP, read once at start: the page (its template with the
/// theme written in), its stylesheet and script, and the theme's files.
public struct WebSite: Sendable {
    /// A response body and its content type.
    public struct Resource: Sendable {
        public var bytes: [UInt8]
        public var contentType: String
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
    /// The most theme files read, all together.
    static let maximumThemeBytes = 8 * 1024 * 1024

    public let theme: Theme
    /// By path: `/`, `/splash.css`, `/splash.js`, `/theme/NAME`.
    public let resources: [String: Resource]

    /// Reads the page from `webRoot` and the theme from `themeDirectory`.
    public init(webRoot: String, themeDirectory: String) throws {
        let (theme, themeFiles) = try Self.readTheme(directory: themeDirectory)
        var resources = themeFiles
        for (name, type) in Self.pageFiles {
            let bytes = try Self.read(webRoot + "/" + name, limit: 1 << 20)
            if name == "index.html" {
                let page = SplashPage.render(template: String(decoding: bytes, as: UTF8.self), theme: theme)
                resources["/"] = Resource(bytes: Array(page.utf8), contentType: type)
            } else {
                resources["/" + name] = Resource(bytes: bytes, contentType: type)
            }
        }
        self.theme = theme
        self.resources = resources
    }

    /// Reads a theme: `theme.toml` and every file of the directory that a page may load (images
    /// and fonts, each a regular file of at most 2 MiB, 8 MiB in all), by their paths under
    /// `/theme/`. `splashd-web check` runs exactly this, so a theme it passes also starts.
    public static func readTheme(directory: String) throws -> (Theme, [String: Resource]) {
        let theme: Theme
        do {
            theme = try ThemeLoader.load(directory: directory)
        } catch {
            throw LoadError(description: error.description)
        }
        var files: [String: Resource] = [:]
        var total = 0
        for name in try list(directory).sorted() {
            guard let type = ThemeLoader.assetType(name) else { continue }
            let bytes = try read(directory + "/" + name, limit: ThemeLoader.maximumAssetSize)
            total += bytes.count
            guard total <= maximumThemeBytes else {
                throw LoadError(description: "\(directory): the theme's files pass \(maximumThemeBytes >> 20) MiB in all")
            }
            files["/theme/" + name] = Resource(bytes: bytes, contentType: type)
        }
        return (theme, files)
    }

    static func read(_ path: String, limit: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw LoadError(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw LoadError(description: "cannot read \(path): not a regular file")
        }
        guard info.st_size <= limit else { throw LoadError(description: "cannot read \(path): larger than \(limit) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, $0.count - done) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw LoadError(description: "cannot read \(path): it changed while it was read") }
            done += count
        }
        return bytes
    }

    static func list(_ directory: String) throws -> [String] {
        guard let handle = opendir(directory) else {
            throw LoadError(description: "cannot read \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
