import CCairo
import CPango
import Glibc
public import SplashTheme

/// A theme's logo drawn once at the size the splash shows it: `side` × `side` pixels of cairo's
/// premultiplied ARGB32 (native byte order, `side * 4` bytes a row), centred in the square and
/// scaled to fit it, as the page's `object-fit: contain`.
///
/// The painter keeps this, not the decoded image: a 23000² PNG costs 2.1 GB decoded and 57.6 KB
/// as a 120² raster, and an SVG is drawn by librsvg once, not on every frame.
public struct LogoRaster: Sendable, Equatable {
    public let side: Int
    public let pixels: [UInt8]

    public init(side: Int, pixels: [UInt8]) {
        precondition(side > 0 && pixels.count == side * side * 4, "a raster is side × side × 4 bytes")
        self.side = side
        self.pixels = pixels
    }

    /// The most pixels a PNG logo may decode to: 4096 × 4096 (64 MiB as ARGB32, within
    /// `LogoBudget.memoryBytes`).
    public static let maximumPNGPixels = 4096 * 4096

    /// Draws `file` (an SVG or a PNG) in this process; `path` names it in errors.
    ///
    /// librsvg's cost has no bound here and it may abort the process on a hostile SVG: the
    /// renderer and `splashd-kms check` draw in a child process under `LogoBudget`
    /// (`IsolatedLogo`); tests and benchmarks draw here.
    public static func draw(_ file: ThemeLoader.File, side: Int, path: String) throws(SplashDrawError) -> LogoRaster {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(side), Int32(side))!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        switch file.contentType {
        case "image/svg+xml":
            let rsvg: Librsvg.Functions
            switch Librsvg.functions {
            case .success(let functions): rsvg = functions
            case .failure(let unavailable): throw .badLogo(path: path, reason: unavailable.reason)
            }
            var error: UnsafeMutablePointer<GError>?
            let handle = file.bytes.withUnsafeBufferPointer { rsvg.newFromData($0.baseAddress, gsize($0.count), &error) }
            guard let handle else {
                let reason = error.map { String(cString: $0.pointee.message) } ?? "not an SVG image"
                if let error { g_error_free(error) }
                throw .badLogo(path: path, reason: reason)
            }
            defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
            var viewport: (Double, Double, Double, Double) = (0, 0, Double(side), Double(side))
            error = nil
            let drawn = withUnsafePointer(to: &viewport) { rsvg.renderDocument(handle, cr, UnsafeRawPointer($0), &error) }
            guard drawn != 0 else {
                let reason = error.map { String(cString: $0.pointee.message) } ?? "librsvg could not draw it"
                if let error { g_error_free(error) }
                throw .badLogo(path: path, reason: reason)
            }
        case "image/png":
            let header = try PNGHeader(file.bytes, path: path)
            let reader = PNGReader(file.bytes)
            let png = withExtendedLifetime(reader) {
                cairo_image_surface_create_from_png_stream({ closure, data, length in
                    Unmanaged<PNGReader>.fromOpaque(closure!).takeUnretainedValue().read(into: data!, length: Int(length))
                }, Unmanaged.passUnretained(reader).toOpaque())!
            }
            defer { cairo_surface_destroy(png) }
            let status = cairo_surface_status(png)
            guard status == CAIRO_STATUS_SUCCESS else {
                // The structure was checked: what is left is the image data itself.
                let reason = status == CAIRO_STATUS_NO_MEMORY
                    ? "its \(header.width)×\(header.height) pixels could not be decoded (damaged image data?)"
                    : String(cString: cairo_status_to_string(status))
                throw .badLogo(path: path, reason: reason)
            }
            let w = Double(header.width), h = Double(header.height)
            let scale = min(Double(side) / w, Double(side) / h)
            cairo_translate(cr, Double(side) / 2, Double(side) / 2)
            cairo_scale(cr, scale, scale)
            cairo_set_source_surface(cr, png, -w / 2, -h / 2)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
        default:
            throw .badLogo(path: path, reason: "the native renderer draws SVG and PNG logos, not \(file.contentType)")
        }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        pixels.withUnsafeMutableBytes { out in
            for row in 0..<side {
                (out.baseAddress! + row * side * 4).copyMemory(from: data + row * stride, byteCount: side * 4)
            }
        }
        return LogoRaster(side: side, pixels: pixels)
    }

    /// A cairo surface on a copy of the pixels (the caller destroys it).
    func makeSurface() -> OpaquePointer {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(side), Int32(side))!
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        pixels.withUnsafeBytes { source in
            for row in 0..<side {
                (data + row * stride).update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * side * 4, count: side * 4)
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }

    /// cairo's PNG stream over bytes in memory.
    private final class PNGReader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func read(into data: UnsafeMutablePointer<UInt8>, length: Int) -> cairo_status_t {
            guard length <= bytes.count - offset else { return CAIRO_STATUS_READ_ERROR }
            bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress! + offset, count: length) }
            offset += length
            return CAIRO_STATUS_SUCCESS
        }
    }
}

/// A PNG file's structure, read before any pixel is decoded: its signature, every chunk's length
/// and CRC, the IHDR first (its size within `LogoRaster.maximumPNGPixels`), an IDAT and the IEND.
/// Each problem is named (a bad CRC, a 0×0 image, an SVG named `.png`), never "out of memory".
public struct PNGHeader: Sendable, Equatable {
    public let width: Int
    public let height: Int

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public init(_ bytes: [UInt8], path: String) throws(SplashDrawError) {
        func bad(_ reason: String) -> SplashDrawError { .badLogo(path: path, reason: reason) }
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else {
            let start = String(decoding: bytes.prefix(256), as: UTF8.self).drop { $0.isWhitespace }
            if start.hasPrefix("<?xml") || start.hasPrefix("<svg") || start.hasPrefix("<!") {
                throw bad("not a PNG image: it is an SVG (name it .svg)")
            }
            throw bad("not a PNG image (no PNG signature)")
        }
        func word(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        var offset = 8
        var size: (Int, Int)?
        var sawData = false
        while true {
            guard offset + 12 <= bytes.count else { throw bad("the PNG is cut short (no IEND chunk)") }
            let length = word(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw bad("the PNG is cut short (in its \(type) chunk)") }
            let crc = UInt32(truncatingIfNeeded: word(offset + 8 + length))
            guard crc == Self.crc32(bytes[(offset + 4)..<(offset + 8 + length)]) else {
                throw bad("the PNG is damaged: its \(type) chunk fails its CRC check")
            }
            if size == nil {
                guard type == "IHDR", length == 13 else { throw bad("the PNG does not start with its IHDR chunk") }
                let width = word(offset + 8), height = word(offset + 12)
                guard width > 0, height > 0 else { throw bad("the PNG is \(width)×\(height) pixels: it has none") }
                guard width <= Self.maxSide, height <= Self.maxSide, width * height <= LogoRaster.maximumPNGPixels else {
                    throw bad("the PNG is \(width)×\(height) pixels, over the limit of \(LogoRaster.maximumPNGPixels) (4096×4096): scale it down (it is drawn at most 120 pixels wide)")
                }
                size = (width, height)
            }
            if type == "IDAT" { sawData = true }
            if type == "IEND" { break }
            offset += 12 + length
        }
        guard sawData, let size else { throw bad("the PNG has no image data (no IDAT chunk)") }
        (width, height) = size
    }

    /// The largest side a PNG's IHDR may give (2³¹ − 1, as the PNG specification).
    static let maxSide = Int(Int32.max)

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

/// Where a painter's logo raster comes from.
public protocol LogoSource: AnyObject {
    /// The raster, waiting for it if it is still being drawn, or why it could not be drawn.
    /// Asked once.
    func raster() -> Result<LogoRaster, SplashDrawError>
    /// Whether `raster()` answers without waiting now.
    var isReady: Bool { get }
    /// A descriptor that polls readable once `isReady` (the drawing child's pidfd); nil: none.
    var readiness: Int32? { get }
    /// When `raster()` stops waiting whatever happens (the budget's end); nil: never waits.
    var deadline: ContinuousClock.Instant? { get }
}

extension LogoSource {
    /// A source that never waits.
    public var isReady: Bool { true }
    public var readiness: Int32? { nil }
    public var deadline: ContinuousClock.Instant? { nil }
}

/// The logo drawn in this process, at once (tests, benchmarks, `splashd-web`'s checks).
public final class InProcessLogo: LogoSource {
    private let result: LogoRaster

    public init(_ file: ThemeLoader.File, side: Int, path: String) throws(SplashDrawError) {
        result = try LogoRaster.draw(file, side: side, path: path)
    }

    public func raster() -> Result<LogoRaster, SplashDrawError> { .success(result) }
}

/// What drawing a logo may cost, once, in the child process that draws it (`splashd-kms`'s
/// `IsolatedLogo`): a hostile or careless SVG (feTurbulence with 100,000 octaves, a megabyte of
/// `<text>`, a 30000² image inside) or PNG is refused instead of holding the display. The
/// reference theme's logo costs 2 ms and 6 MB of it (docs/benchmarks.md).
public enum LogoBudget {
    /// CPU seconds (RLIMIT_CPU: SIGXCPU past it).
    public static let cpuSeconds = 2
    /// Wall-clock seconds from the child's start before the renderer kills it: a safety net (its
    /// work is CPU-bound, and the CPU budget ends a hostile file), generous because a slow or
    /// busy device (the emulated VM: seconds to start a process) must not lose an honest logo.
    /// The renderer waits only when the logo first shows, 100 ms into the entry animation, or in
    /// `check`.
    public static let wallSeconds = 30
    /// Address space the child may map beyond what it has when it starts drawing (RLIMIT_AS).
    public static let memoryBytes = 512 << 20
}
