import CCairo
import CPango
import Glibc

/// librsvg, loaded with `dlopen` when an SVG logo is first drawn, not linked: the renderer draws
/// its logo in a child process (`IsolatedLogo`), so the renderer itself never loads librsvg, nor
/// libxml2 and ICU's 31 MB of data through it, and a theme with a PNG logo (or the firmware's)
/// needs none of them, in the initramfs either (docs/benchmarks.md, "The initramfs").
enum Librsvg {
    /// `rsvg_handle_new_from_data`.
    typealias NewFromData = @convention(c) (
        UnsafePointer<UInt8>?, gsize, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
    ) -> OpaquePointer?
    /// `rsvg_handle_render_document`, the viewport an `RsvgRectangle` (four doubles: x, y,
    /// width, height).
    typealias RenderDocument = @convention(c) (
        OpaquePointer?, OpaquePointer?, UnsafeRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
    ) -> gboolean

    /// Why it cannot be used.
    struct Unavailable: Error, Sendable {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    struct Functions: Sendable {
        let newFromData: NewFromData
        let renderDocument: RenderDocument
    }

    /// Debian 12's librsvg2-2 (the package's Depends names it: dpkg-shlibdeps cannot see a
    /// library loaded this way).
    static let soname = "librsvg-2.so.2"

    /// The functions, or why librsvg could not be loaded; loaded once, on first use.
    static let functions: Result<Functions, Unavailable> = {
        guard let library = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.init("librsvg cannot be loaded (\(dlerror().map { String(cString: $0) } ?? soname)): install librsvg2-2, or use a PNG logo"))
        }
        guard let new = dlsym(library, "rsvg_handle_new_from_data"), let render = dlsym(library, "rsvg_handle_render_document") else {
            return .failure(.init("\(soname) has no rsvg_handle_render_document (librsvg 2.46 or later is needed)"))
        }
        return .success(Functions(newFromData: unsafeBitCast(new, to: NewFromData.self),
                                  renderDocument: unsafeBitCast(render, to: RenderDocument.self)))
    }()
}
