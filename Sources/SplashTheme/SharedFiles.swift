#if canImport(Glibc)
import Glibc
#endif

/// Where the renderers' shared files are (the page, the shipped themes): beside the running
/// binary (`../share/splashd`), as `make install` lays them out under any prefix, else the
/// package's `/usr/share/splashd`. Both renderers pick their default theme the same way.
public enum SharedFiles {
    /// `../share/splashd` from the running binary when it holds `marker` (a path inside it, such
    /// as `web/index.html`), else `/usr/share/splashd`.
    public static func directory(holding marker: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            let exe = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let bin = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
            let share = bin + "/../share/splashd"
            if access(share + "/" + marker, R_OK) == 0 { return share }
        }
        return "/usr/share/splashd"
    }

    /// The operator's theme, `/etc/splashd/theme`, when it holds a `theme.toml`; else the shipped
    /// default theme (in `directory(holding: marker)`).
    public static func defaultTheme(holding marker: String) -> String {
        access(etcTheme + "/theme.toml", R_OK) == 0 ? etcTheme : directory(holding: marker) + "/themes/default"
    }

    /// The operator's theme, which the renderers draw when it has a theme.toml.
    public static let etcTheme = "/etc/splashd/theme"
}
