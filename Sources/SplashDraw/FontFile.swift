import CPango
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A theme's own font file (`font_file`), given to fontconfig as an application font, as the page
/// gives it to the browser with `@font-face`. fontconfig and FreeType read fonts by path: the
/// bytes the theme loader read go into an anonymous memory file (memfd), named to them as
/// `/proc/self/fd/N` and kept open for the process's life; the file on disk is not opened again.
/// FreeType reads TrueType, OpenType, WOFF and WOFF2.
enum FontFile {
    /// Loaded files by their bytes' identity: a theme's painter made twice adds its font once.
    /// Painters are made on several threads at once (the tests draw in parallel): the lock is
    /// held for the whole registration, so two of the same bytes add the font once.
    private static let families = Mutex<[[UInt8]: String]>([:])

    /// Adds the font to fontconfig's current configuration and tells pango's font map; returns
    /// the font's own family name (which the page's `@font-face` would have called `font`).
    static func register(_ bytes: [UInt8], path: String) throws(SplashDrawError) -> String {
        try families.withLock { (families: inout [[UInt8]: String]) throws(SplashDrawError) -> String in
            if let family = families[bytes] { return family }
            let family = try add(bytes, path: path)
            families[bytes] = family
            return family
        }
    }

    private static func add(_ bytes: [UInt8], path: String) throws(SplashDrawError) -> String {
        let fd = splash_font_memfd()
        guard fd >= 0 else { throw .badFont(path: path, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            guard n > 0 else {
                close(fd)
                throw .badFont(path: path, reason: String(cString: strerror(errno)))
            }
            written += n
        }
        let name = "/proc/self/fd/\(fd)"
        var count: Int32 = 0
        guard let pattern = FcFreeTypeQuery(name, 0, nil, &count) else {
            close(fd)
            throw .badFont(path: path, reason: "not a font FreeType can read (TrueType, OpenType, WOFF, WOFF2)")
        }
        defer { FcPatternDestroy(pattern) }
        var value: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, FC_FAMILY, 0, &value) == FcResultMatch, let value,
            FcConfigAppFontAddFile(nil, name) == FcTrue
        else {
            close(fd)
            throw .badFont(path: path, reason: "fontconfig cannot take it as a font")
        }
        let family = String(cString: value)
        // pango's fontconfig map caches what it found: it looks again.
        pango_fc_font_map_config_changed(OpaquePointer(pango_cairo_font_map_get_default()))
        return family
    }
}
