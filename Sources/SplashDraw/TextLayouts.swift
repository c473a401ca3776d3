import CPango
import SplashCore
import SplashProtocol

/// The painter's texts laid out by pango, kept for the next frame: every text of the theme at a
/// few sizes, and the step and error messages of the moment, at most `maximum` of them (then it
/// starts again: a plugin whose messages keep changing would grow it for the whole launch).
///
/// pango's context is made on the first text: fontconfig's set-up, which it starts, is most of a
/// renderer's start on a small device. Not thread-safe, as its painter.
final class TextLayouts {
    /// The most layouts kept.
    static let maximum = 64

    /// The font families tried in order (CSS's `font-family` form: `Own,Theme font,sans-serif`).
    var family: String
    private var madeContext: OpaquePointer?
    private var layouts: [Key: OpaquePointer] = [:]

    private struct Key: Hashable {
        var text: String
        var style: TextStyle
        var width: Int
        var lines: Int?
    }

    init(family: String) { self.family = family }

    deinit {
        for layout in layouts.values { g_object_unref(UnsafeMutableRawPointer(layout)) }
        if let madeContext { g_object_unref(UnsafeMutableRawPointer(madeContext)) }
    }

    /// How many are kept now.
    var count: Int { layouts.count }

    /// pango's context, made now if it was not yet.
    var context: OpaquePointer {
        if let madeContext { return madeContext }
        let context = pango_font_map_create_context(pango_cairo_font_map_get_default())!
        madeContext = context
        return context
    }

    /// A pango layout of `text` wrapped (centered) within `width`; with `lines`, at most that
    /// many lines, the last one ending in `…` when the text goes on. Such a text is one paragraph
    /// (its line breaks are spaces, `DisplayText.cleaned`): pango counts the lines per paragraph.
    func layout(_ text: String, _ style: TextStyle, width: Double, lines: Int? = nil) -> OpaquePointer {
        let key = Key(text: text, style: style, width: Int(width.rounded()), lines: lines)
        if let layout = layouts[key] { return layout }
        if layouts.count >= Self.maximum {
            // The theme's few texts are laid out again on the next frame.
            for layout in layouts.values { g_object_unref(UnsafeMutableRawPointer(layout)) }
            layouts.removeAll(keepingCapacity: true)
        }
        let layout = pango_layout_new(context)!
        let font = pango_font_description_new()
        pango_font_description_set_family(font, family)
        pango_font_description_set_weight(font, PangoWeight(rawValue: UInt32(style.weight)))
        pango_font_description_set_absolute_size(font, style.size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        let attributes = pango_attr_list_new()
        if style.letterSpacing != 0 {
            pango_attr_list_insert(attributes, pango_attr_letter_spacing_new(Int32(style.letterSpacing * Double(PANGO_SCALE))))
        }
        pango_attr_list_insert(attributes, pango_attr_line_height_new_absolute(Int32(style.lineHeight * Double(PANGO_SCALE))))
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)
        pango_layout_set_width(layout, Int32(max(width, 1) * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        if let lines {
            pango_layout_set_height(layout, -Int32(max(lines, 1)))
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        pango_layout_set_text(layout, lines == nil ? text : DisplayText.cleaned(text), -1)
        layouts[key] = layout
        return layout
    }

    /// Whether `text` laid out within `width` in at most `lines` lines was cut (ends in `…`).
    func isCut(_ text: String, _ style: TextStyle, width: Double, lines: Int) -> Bool {
        pango_layout_is_ellipsized(layout(text, style, width: width, lines: lines)) != 0
    }

    /// The size of `text` laid out within `width` (in at most `lines` lines): the widest line,
    /// and the lines' height.
    func measure(_ text: String, _ style: TextStyle, width: Double, lines: Int? = nil) -> (width: Double, height: Double) {
        let layout = layout(text, style, width: width, lines: lines)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let lines = Double(pango_layout_get_line_count(layout))
        return (Double(logical.width), max(Double(logical.height), lines * style.lineHeight))
    }
}
