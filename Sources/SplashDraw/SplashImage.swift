import CCairo
import Glibc

/// A picture in memory that the splash is drawn into: 32 bits a pixel (cairo's ARGB32, native
/// byte order: XRGB8888 on a little-endian machine, what a DRM dumb buffer takes), in memory of
/// its own (tests, benchmarks) or in memory given to it (a mapped DRM buffer).
public final class SplashImage {
    let surface: OpaquePointer
    public let width: Int
    public let height: Int

    /// A new image of `width` × `height` pixels, black and transparent.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "an image has pixels")
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        self.width = width
        self.height = height
    }

    /// An image on `data` (`stride` bytes a row, at least `width` × 4), which must outlive it.
    public init(data: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int) {
        surface = cairo_image_surface_create_for_data(
            data.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(stride))
        self.width = width
        self.height = height
    }

    deinit { cairo_surface_destroy(surface) }

    /// The pixels, `width` × 4 bytes a row with no padding (XRGB8888 on a little-endian machine).
    public func packedPixels() -> [UInt8] {
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        let stride = Int(cairo_image_surface_get_stride(surface))
        let row = width * 4
        return [UInt8](unsafeUninitializedCapacity: row * height) { buffer, count in
            for y in 0..<height {
                UnsafeMutableRawPointer(buffer.baseAddress! + y * row).copyMemory(from: data + y * stride, byteCount: row)
            }
            count = row * height
        }
    }

    /// Whether the image's pixels are `pixels` (as `packedPixels` gives them), compared in place.
    public func hasPixels(_ pixels: ArraySlice<UInt8>) -> Bool {
        guard pixels.count == width * height * 4 else { return false }
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        let stride = Int(cairo_image_surface_get_stride(surface))
        let row = width * 4
        return pixels.withUnsafeBytes { source in
            (0..<height).allSatisfy { y in memcmp(data + y * stride, source.baseAddress! + y * row, row) == 0 }
        }
    }

    /// Replaces every pixel with `pixels` (as `packedPixels` gives them: `width` × `height` × 4).
    public func replacePixels(with pixels: ArraySlice<UInt8>) {
        precondition(pixels.count == width * height * 4, "a picture of \(width) × \(height)")
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        let stride = Int(cairo_image_surface_get_stride(surface))
        let row = width * 4
        pixels.withUnsafeBytes { source in
            for y in 0..<height {
                UnsafeMutableRawPointer(data + y * stride).copyMemory(from: source.baseAddress! + y * row, byteCount: row)
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    /// A pixel as red, green, blue and alpha (0–255; premultiplied, as cairo keeps them: the
    /// splash's pixels are opaque).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside the image")
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        let stride = Int(cairo_image_surface_get_stride(surface))
        let value = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        return (UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
                UInt8(truncatingIfNeeded: value >> 24))
    }

    /// Writes the image as a PNG file (cairo's writer).
    public func writePNG(to path: String) throws(SplashDrawError) {
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .cannotWrite(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
    }

    /// The image as an opaque PNG (8-bit RGB, cairo's writer; the pixels' alpha bytes are not
    /// looked at): what a screen shows of it.
    public func opaquePNG() throws(SplashDrawError) -> [UInt8] {
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        let opaque = cairo_image_surface_create_for_data(
            data, CAIRO_FORMAT_RGB24, Int32(width), Int32(height), cairo_image_surface_get_stride(surface))!
        defer { cairo_surface_destroy(opaque) }
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(opaque, { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .cannotWrite(path: "(memory)", reason: String(cString: cairo_status_to_string(status)))
        }
        return sink.bytes
    }

    /// Reads a PNG file (cairo's reader), e.g. a reference picture.
    public static func readPNG(_ path: String) throws(SplashDrawError) -> SplashImage {
        let png = cairo_image_surface_create_from_png(path)!
        defer { cairo_surface_destroy(png) }
        let status = cairo_surface_status(png)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .cannotRead(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
        let image = SplashImage(width: Int(cairo_image_surface_get_width(png)), height: Int(cairo_image_surface_get_height(png)))
        let cr = cairo_create(image.surface)
        cairo_set_source_surface(cr, png, 0, 0)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_destroy(cr)
        return image
    }
}

/// Why a theme's picture could not be drawn or read.
public enum SplashDrawError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The logo file could not be read or is not a PNG or SVG image.
    case badLogo(path: String, reason: String)
    /// The theme's font file could not be taken as a font.
    case badFont(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case cannotRead(path: String, reason: String)

    public var description: String {
        switch self {
        case .badLogo(let path, let reason): "\(path): cannot draw the logo: \(reason)"
        case .badFont(let path, let reason): "\(path): cannot use the font: \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
