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

/// fontconfig set up from font directories alone, with no configuration file (`splashd-kms
/// --font-dir`, the initramfs's renderer): no XML parsed, so no expat, whose hash salt is a
/// blocking `getrandom` that early in boot waits for the kernel's random numbers (a second on the
/// emulated power-on machine); no rules (aliases, hinting), as the initramfs's own `fonts.conf`
/// had none; and no cache (each file is read, as fontconfig would on a cache's miss: the few
/// fonts the hook copies). Must run before anything asks fontconfig (pango's font map does).
public enum FontDirectories {
    /// Makes a configuration of the fonts in `directories` (their regular files, not their
    /// subdirectories) fontconfig's current one; the number of font files it took. A directory
    /// it cannot read is told to `warn` and left out; a file that is not a font is passed over.
    @discardableResult
    public static func useOnly(_ directories: [String], warn: (String) -> Void) -> Int {
        guard let config = FcConfigCreate() else {
            warn("fontconfig cannot make a configuration: the system's is used")
            return 0
        }
        defer { FcConfigDestroy(config) }
        var files = 0
        for directory in directories {
            guard let stream = opendir(directory) else {
                warn("cannot read the fonts in \(directory) (\(String(cString: strerror(errno)))): left out")
                continue
            }
            var names: [String] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if !name.hasPrefix(".") { names.append(name) }
            }
            closedir(stream)
            for name in names.sorted() {
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                var info = stat()
                guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                if FcConfigAppFontAddFile(config, path) == FcTrue { files += 1 }
            }
        }
        // (SetCurrent takes its own reference; the deferred destroy drops ours.)
        guard FcConfigSetCurrent(config) == FcTrue else {
            warn("fontconfig cannot take the configuration: the system's is used")
            return 0
        }
        return files
    }
}
