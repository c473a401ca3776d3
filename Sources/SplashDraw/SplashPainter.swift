import CCairo
import CPango
import Glibc
import SplashCore
public import SplashTheme
public import SplashScene

/// Draws a theme's splash with cairo, pango and librsvg: design §10's page, in pixels.
///
/// One painter per theme (it holds the logo, read once, and the texts' layouts, made once per
/// size); not thread-safe: used from the renderer's one drawing thread.
public final class SplashPainter {
    public let theme: Theme
    public let palette: Theme.Palette
    public let timeline: SplashTimeline
    /// Where the logo's raster comes from until it came (nil: no logo, or it failed).
    private var logoSource: (any LogoSource)?
    /// The logo drawn once at its size, once it came.
    private var logoSurface: OpaquePointer?
    /// The firmware's logo (`logo = "firmware"` on a machine that publishes one), drawn at the
    /// firmware's place and scale from the first frame on, with no entry animation.
    public let firmwareLogo: FirmwareLogo?
    private var firmwareSurface: OpaquePointer?
    /// Told once when the logo could not be drawn (over its budget, or a hostile file): the
    /// splash is then drawn without it.
    public var onLogoFailure: ((SplashDrawError) -> Void)?
    /// Told when a deferred painter's font file could not be registered on a frame that needed
    /// it before `prepare()` (the texts then fall back to the theme's `font` and sans-serif).
    public var onFontFailure: ((SplashDrawError) -> Void)?
    /// The texts' layouts (and the font families they are set in).
    private let texts: TextLayouts
    /// What a deferred painter does in `prepare()`: the theme's font file to register, and the
    /// logo's source to start.
    private var pendingFont: (bytes: [UInt8], path: String)?
    private var pendingLogo: (() throws(SplashDrawError) -> any LogoSource)?
    /// The most text layouts kept (`TextLayouts.maximum`).
    static let maximumLayouts = TextLayouts.maximum
    /// How many are kept now (tests).
    var cachedLayouts: Int { texts.count }
    /// The most lines a text from the state takes (the step's message, the updater's message or
    /// error, the error view's title, which is the state's message when the theme has no words
    /// for the error): a longer one ends its last line in `…` rather than push the view off the
    /// screen.
    public static let stateTextLines = 3

    /// A painter for `theme` with its files as `ThemeLoader` read them (regular files, no links,
    /// bounded: the logo is decoded from those bytes, never read again from disk); `directory`
    /// only names the logo in errors. `dark` picks the dark palette (`appearance = "auto"` is
    /// light on a display with no system setting, design §13). `logo` draws the logo's raster:
    /// in this process by default (`InProcessLogo`, which throws here when it cannot), or in a
    /// child process under a budget (the renderer's `IsolatedLogo`, whose failure comes later,
    /// to `onLogoFailure` or `awaitLogo`). `firmwareLogo` is what the firmware published, for a
    /// theme with `logo = "firmware"` (else, or when nil, the theme's `logo_fallback` is drawn).
    /// `deferred`: the font file is registered and the logo's raster begun only in `prepare()`
    /// (or the first frame that needs them), so a first frame of the background alone comes
    /// before fontconfig and the logo's child process (the native renderer's start).
    public init(
        theme: Theme, files: [String: ThemeLoader.File], directory: String, dark: Bool? = nil, firmwareLogo: FirmwareLogo? = nil,
        deferred: Bool = false,
        logo makeLogo: @escaping (ThemeLoader.File, _ side: Int, _ path: String) throws(SplashDrawError) -> any LogoSource = InProcessLogo.init
    ) throws(SplashDrawError) {
        self.theme = theme
        self.firmwareLogo = theme.firmwareLogo ? firmwareLogo.flatMap { $0.pixels.count == $0.width * $0.height ? $0 : nil } : nil
        let useDark = dark ?? (theme.appearance == .dark)
        palette = useDark ? theme.dark : theme.light
        timeline = SplashTimeline(reduceMotion: theme.motion == .reduce)
        // The font file's own family first: the page's @font-face calls it `font` whatever it
        // calls itself.
        var own: String?
        var family = (theme.font.map { "\($0)," } ?? "") + "sans-serif"
        if let name = theme.fontFile {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let file = files[name] else { throw .badFont(path: path, reason: "not among the theme's files") }
            if deferred {
                pendingFont = (file.bytes, path)
            } else {
                own = try FontFile.register(file.bytes, path: path)
            }
        }
        if let own { family = "\(own)," + family }
        texts = TextLayouts(family: family)
        if let firmware = self.firmwareLogo {
            let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(firmware.width), Int32(firmware.height))!
            let stride = Int(cairo_image_surface_get_stride(surface))
            cairo_surface_flush(surface)
            let data = cairo_image_surface_get_data(surface)!
            let rowBytes: Int = firmware.width * 4
            firmware.pixels.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
                for row in 0..<firmware.height {
                    let from: UnsafeRawPointer = source.baseAddress! + row * rowBytes
                    UnsafeMutableRawPointer(data + row * stride).copyMemory(from: from, byteCount: rowBytes)
                }
            }
            cairo_surface_mark_dirty(surface)
            firmwareSurface = surface
        } else if let name = theme.logo {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let file = files[name] else { throw .badLogo(path: path, reason: "not among the theme's files") }
            let side = palette.logoBackground != .transparent ? 72 : 120
            if deferred {
                pendingLogo = { () throws(SplashDrawError) in try makeLogo(file, side, path) }
            } else {
                logoSource = try makeLogo(file, side, path)
            }
        }
    }

    /// A deferred painter's set-up: the theme's font file registered (a failure is thrown, and
    /// the texts fall back to the theme's `font` and sans-serif), the logo's raster begun (a
    /// failure goes to `onLogoFailure`), and pango's context made. Nothing for a painter that
    /// was not deferred, or a second time.
    public func prepare() throws(SplashDrawError) {
        _ = texts.context
        if let logo = pendingLogo {
            pendingLogo = nil
            do {
                logoSource = try logo()
            } catch {
                onLogoFailure?(error)
            }
        }
        if let font = pendingFont {
            pendingFont = nil
            let own = try FontFile.register(font.bytes, path: font.path)
            texts.family = "\(own)," + texts.family
        }
    }

    /// A painter for a theme `ThemeLoader` loaded from `directory`.
    public convenience init(
        _ loaded: ThemeLoader.Loaded, directory: String, dark: Bool? = nil, firmwareLogo: FirmwareLogo? = nil,
        deferred: Bool = false,
        logo makeLogo: @escaping (ThemeLoader.File, _ side: Int, _ path: String) throws(SplashDrawError) -> any LogoSource = InProcessLogo.init
    ) throws(SplashDrawError) {
        try self.init(theme: loaded.theme, files: loaded.files, directory: directory, dark: dark, firmwareLogo: firmwareLogo,
                      deferred: deferred, logo: makeLogo)
    }

    deinit {
        if let logoSurface { cairo_surface_destroy(logoSurface) }
        if let firmwareSurface { cairo_surface_destroy(firmwareSurface) }
    }

    /// Whether a frame waits for the logo's raster (`splashd-kms check`, tests, benchmarks), or
    /// is drawn without it until it came, its name and tagline included (the native renderer,
    /// which polls `logoReadiness` and calls `takeLogoIfReady()`).
    public var waitsForLogo = true

    /// Whether the logo's raster is still to come (its source is made, or begins in `prepare()`).
    public var logoPending: Bool { logoSurface == nil && (pendingLogo != nil || logoSource != nil) }

    /// What tells that the logo's raster is there: a descriptor to poll, and when it is there (or
    /// given up) in any case.
    public var logoReadiness: (descriptor: Int32?, deadline: ContinuousClock.Instant?) {
        (logoSource?.readiness, logoSource?.deadline)
    }

    /// Takes the logo's raster in if its source has it, never waiting (a failure goes to
    /// `onLogoFailure`); true once nothing is pending.
    @discardableResult
    public func takeLogoIfReady() -> Bool {
        if let logoSource, logoSource.isReady { resolveLogo() }
        return !logoPending
    }

    /// Waits for the logo's raster; throws why it could not be drawn (`splashd-kms check`).
    public func awaitLogo() throws(SplashDrawError) {
        if let failure = resolveLogo() { throw failure }
    }

    /// The logo's surface once its source answered; the failure, once.
    @discardableResult
    private func resolveLogo() -> SplashDrawError? {
        guard logoSurface == nil, let source = logoSource else { return nil }
        logoSource = nil
        switch source.raster() {
        case .success(let raster):
            logoSurface = raster.makeSurface()
            return nil
        case .failure(let error):
            onLogoFailure?(error)
            return error
        }
    }

    // MARK: Layout

    /// Where everything goes on an upright picture of `width` × `height`.
    public func layout(_ view: SplashView, width: Double, height: Double) -> SplashLayout {
        if pendingFont != nil || pendingLogo != nil {
            do { try prepare() } catch { onFontFailure?(error) }
        }
        let error = view.phase == .error ? view.error : nil
        // Small panels: in the error view the logo moves up to leave room for the buttons.
        let small = error != nil && height <= 560
        let logo = logoBox(small: small, width: width, height: height)
        let column = max(width - 32, 1)
        var y = small ? 160 : height / 2 + 44
        // The firmware's logo stays where the firmware put it (it never moves: one picture from
        // power-on); the texts begin under it.
        if firmwareLogo?.origin(onWidth: Int(width), height: Int(height)) != nil { y = max(y, logo.maxY + 24) }
        func block(_ text: String, _ style: TextStyle, maxWidth: Double, lines: Int? = nil) -> SplashLayout.Rect {
            let size = texts.measure(text, style, width: maxWidth, lines: lines)
            defer { y += size.height }
            return SplashLayout.Rect(x: width / 2 - maxWidth / 2, y: y, width: maxWidth, height: size.height)
        }
        let name = block(theme.name, .name, maxWidth: column)
        var layout = SplashLayout(width: width, height: height, logo: logo, name: name)
        if let mode = view.mode {
            // The update and shutdown views (the page's `#mode`): 32 px down, a failed update's
            // error icon, the title, the bar (at most 240 px wide, 6 px high) 16 px under it, the
            // message 12 px under that, the warning 16 px under that.
            let textWidth = min(320, column)
            y += 32
            if mode.failed {
                layout.errorIcon = SplashLayout.Rect(x: width / 2 - 12, y: y, width: 24, height: 24)
                y += 24 + 12
            }
            layout.modeTitle = block(mode.title, .errorTitle, maxWidth: textWidth)
            if mode.progress != nil {
                y += 16
                let barWidth = min(240, column)
                layout.modeProgress = SplashLayout.Rect(x: width / 2 - barWidth / 2, y: y, width: barWidth, height: 6)
                y += 6
            }
            if let message = mode.message, !message.isEmpty {
                y += 12
                layout.modeMessage = block(message, .step, maxWidth: textWidth, lines: Self.stateTextLines)
            }
            if let warning = mode.warning, !warning.isEmpty {
                y += 16
                layout.modeWarning = block(warning, .modeWarning, maxWidth: textWidth)
            }
            return layout
        }
        if let tagline = tagline(of: view) {
            y += 8
            layout.tagline = block(tagline, .tagline, maxWidth: min(280, column))
        }
        y += 32
        if let error {
            layout.errorIcon = SplashLayout.Rect(x: width / 2 - 12, y: y, width: 24, height: 24)
            y += 24 + 12
            let textWidth = min(320, column)
            layout.errorTitle = block(error.title, .errorTitle, maxWidth: textWidth, lines: Self.stateTextLines)
            if let detail = error.detail, !detail.isEmpty {
                y += 4
                layout.errorDetail = block(detail, .errorDetail, maxWidth: textWidth)
            }
            y += 24
            let widths = error.buttons.map { max(96, texts.measure($0.title, .button, width: 1000).width + 32) }
            let total = widths.reduce(0, +) + Double(max(widths.count - 1, 0)) * 12
            var x = width / 2 - total / 2
            for (button, buttonWidth) in zip(error.buttons, widths) {
                layout.buttons.append(.init(button: button, rect: SplashLayout.Rect(x: x, y: y, width: buttonWidth, height: 44)))
                x += buttonWidth + 12
            }
        } else if view.phase == .loading, view.slow {
            let indicatorWidth: Double = theme.indicator == .dots ? 40 : 24
            layout.indicator = SplashLayout.Rect(x: width / 2 - indicatorWidth / 2, y: y, width: indicatorWidth, height: 24)
            y += 24
            if theme.showProgress {
                y += 8
                layout.progress = SplashLayout.Rect(x: width / 2 - 80, y: y, width: 160, height: 4)
                y += 4
            }
            if theme.showStep, let step = view.step, !step.isEmpty {
                y += 8
                layout.step = block(step, .step, maxWidth: min(280, column), lines: Self.stateTextLines)
            }
        }
        return layout
    }

    /// The logo's box, which needs no text: the theme's logo above the middle (near the top in
    /// a small error view), or the firmware's where the firmware put it.
    private func logoBox(small: Bool, width: Double, height: Double) -> SplashLayout.Rect {
        if let firmware = firmwareLogo, let origin = firmware.origin(onWidth: Int(width), height: Int(height)) {
            return SplashLayout.Rect(x: Double(origin.x), y: Double(origin.y), width: Double(firmware.width), height: Double(firmware.height))
        }
        return SplashLayout.Rect(x: width / 2 - 60, y: small ? 24 : height / 2 - 100, width: 120, height: 120)
    }

    /// The theme's texts (its name, its tagline) that draw no ink on a picture of `width` ×
    /// `height`: a font file cut short can keep its character map and lose its glyphs, and the
    /// text then draws blank (`splashd-kms check` refuses it).
    public func textsWithoutInk(width: Int = 320, height: Int = 480) -> [String] {
        let view = SplashView(tagline: theme.taglines.first)
        let image = SplashImage(width: width, height: height)
        draw(view, at: .init(sinceShown: 5000), into: image)
        let layout = self.layout(view, width: Double(width), height: Double(height))
        let background = palette.background.rgba ?? .init(red: 0, green: 0, blue: 0, alpha: 1)
        func inked(_ rect: SplashLayout.Rect) -> Bool {
            for y in max(0, Int(rect.y))..<min(height, Int(rect.maxY.rounded(.up))) {
                for x in max(0, Int(rect.x))..<min(width, Int((rect.x + rect.width).rounded(.up))) {
                    let p = image.pixel(x: x, y: y)
                    if abs(Double(p.r) - background.red) + abs(Double(p.g) - background.green) + abs(Double(p.b) - background.blue) > 48 { return true }
                }
            }
            return false
        }
        var blank: [String] = []
        if !inked(layout.name) { blank.append("name") }
        if let rect = layout.tagline, !inked(rect) { blank.append(theme.tagline != nil ? "tagline" : "taglines") }
        return blank
    }

    /// The line under the name: the theme's `tagline`, or the launch's one of its `taglines`
    /// (a no-break space until a state names the launch, as the page keeps the line's place).
    func tagline(of view: SplashView) -> String? {
        if let tagline = theme.tagline, !tagline.isEmpty { return tagline }
        guard !theme.taglines.isEmpty else { return nil }
        return view.tagline ?? "\u{00A0}"
    }

    // MARK: Drawing

    /// Draws `view` at `times` on all of `image`, turned by `rotation`; `focus` is the error
    /// view's button that shows the focus ring (the page's `:focus-visible`: once a key moved the
    /// focus), if any.
    public func draw(_ view: SplashView, at times: SplashTimeline.Times, into image: SplashImage, rotation: SplashRotation = .none,
                     focus: SplashView.Button? = nil) {
        let cr = cairo_create(image.surface)!
        defer { cairo_destroy(cr) }
        let (width, height) = rotation.upright(width: Double(image.width), height: Double(image.height))
        switch rotation {
        case .none: break
        case .quarter:
            cairo_translate(cr, Double(image.width), 0)
            cairo_rotate(cr, Double.pi / 2)
        case .half:
            cairo_translate(cr, Double(image.width), Double(image.height))
            cairo_rotate(cr, Double.pi)
        case .threeQuarters:
            cairo_translate(cr, 0, Double(image.height))
            cairo_rotate(cr, -Double.pi / 2)
        }
        setColor(cr, palette.background)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        // Nothing but the background (and the firmware's logo) shows yet, as when the entry
        // begins: nothing is laid out, so this frame needs neither fontconfig, pango nor the
        // logo's raster (the native renderer's first frame, before they are set up).
        if isBare(view, at: times) {
            drawLogo(cr, logoBox(small: false, width: width, height: height), at: times.sinceShown)
            return
        }
        let layout = self.layout(view, width: width, height: height)
        drawLogo(cr, layout.logo, at: times.sinceShown)
        let text = timeline.text(at: times.sinceShown)
        drawText(cr, theme.name, .name, in: layout.name, color: palette.foreground, opacity: text.opacity, offset: text.offset)
        if let mode = view.mode {
            drawMode(cr, mode, layout, opacity: text.opacity, offset: text.offset)
            return
        }
        if let rect = layout.tagline, let tagline = tagline(of: view) {
            drawText(cr, tagline, .tagline, in: rect, color: palette.secondary, opacity: text.opacity, offset: text.offset)
        }
        if let sinceSlow = times.sinceSlow, let rect = layout.indicator {
            let opacity = timeline.indicator(sinceSlow: sinceSlow)
            drawIndicator(cr, rect, sinceSlow: sinceSlow, opacity: opacity)
            if let bar = layout.progress { drawProgress(cr, bar, progress: view.progress, opacity: opacity) }
            if let rect = layout.step, let step = view.step {
                drawText(cr, step, .step, in: rect, color: palette.secondary, opacity: opacity, offset: 0, lines: Self.stateTextLines)
            }
        }
        if let error = view.error, view.phase == .error {
            drawError(cr, error, layout, focus: focus)
        }
    }

    /// Whether `view` at `times` shows only the background and the firmware's logo: the theme's
    /// logo and texts still transparent, no indicator, no error.
    public func isBare(_ view: SplashView, at times: SplashTimeline.Times) -> Bool {
        (firmwareSurface != nil || timeline.logo(at: times.sinceShown).opacity <= 0)
            && timeline.text(at: times.sinceShown).opacity <= 0 && times.sinceSlow == nil
            && !(view.phase == .error && view.error != nil)
    }

    /// The colour's channels, parsed when the theme was loaded (`transparent`: nothing drawn).
    private func setColor(_ cr: OpaquePointer, _ color: ThemeColor, opacity: Double = 1) {
        guard let c = color.rgba else { return cairo_set_source_rgba(cr, 0, 0, 0, 0) }
        cairo_set_source_rgba(cr, c.red / 255, c.green / 255, c.blue / 255, c.alpha * opacity)
    }

    private func drawLogo(_ cr: OpaquePointer, _ box: SplashLayout.Rect, at t: Double) {
        if let firmwareSurface {
            // As the firmware drew it: from the first frame, one pixel a pixel, no animation.
            guard box.width == Double(cairo_image_surface_get_width(firmwareSurface)) else { return }
            cairo_set_source_surface(cr, firmwareSurface, box.x, box.y)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST)
            cairo_paint(cr)
            return
        }
        let state = timeline.logo(at: t)
        guard state.opacity > 0 else { return }
        let circle = palette.logoBackground != .transparent
        cairo_save(cr)
        // The group (for the opacity) only as large as the logo and its shadow, not the screen.
        cairo_rectangle(cr, box.x - 40, box.y - 40, box.width + 80, box.height + 88)
        cairo_clip(cr)
        cairo_push_group(cr)
        cairo_translate(cr, box.midX, box.midY)
        cairo_scale(cr, state.scale, state.scale)
        if circle {
            // box-shadow: 0 8px 24px rgba(0,0,0,.15): a disc blurred with σ = 12 px, 8 px lower.
            let pattern = cairo_pattern_create_radial(0, 8, 0, 0, 8, 60 + 36)!
            for step in 0...24 {
                let r = Double(step) / 24 * (60 + 36)
                let z = (60 - r) / 12
                let alpha = 0.15 * 0.5 * (1 + erf(z / 2.0.squareRoot()))
                cairo_pattern_add_color_stop_rgba(pattern, r / (60 + 36), 0, 0, 0, alpha)
            }
            cairo_set_source(cr, pattern)
            cairo_arc(cr, 0, 8, 60 + 36, 0, 2 * Double.pi)
            cairo_fill(cr)
            cairo_pattern_destroy(pattern)
            setColor(cr, palette.logoBackground)
            cairo_arc(cr, 0, 0, 60, 0, 2 * Double.pi)
            cairo_fill(cr)
        }
        if waitsForLogo || logoSource?.isReady == true { resolveLogo() }
        if let surface = logoSurface {
            let side = Double(cairo_image_surface_get_width(surface))
            cairo_set_source_surface(cr, surface, -side / 2, -side / 2)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
        }
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, state.opacity)
        cairo_restore(cr)
    }

    private func drawText(
        _ cr: OpaquePointer, _ text: String, _ style: TextStyle, in rect: SplashLayout.Rect, color: ThemeColor, opacity: Double,
        offset: Double, lines: Int? = nil
    ) {
        guard opacity > 0 else { return }
        let layout = texts.layout(text, style, width: rect.width, lines: lines)
        setColor(cr, color, opacity: opacity)
        cairo_move_to(cr, rect.x, rect.y + offset)
        pango_cairo_update_layout(cr, layout)
        pango_cairo_show_layout(cr, layout)
    }

    private func drawIndicator(_ cr: OpaquePointer, _ rect: SplashLayout.Rect, sinceSlow: Double, opacity: Double) {
        switch theme.indicator {
        case .dots:
            for index in 0..<3 {
                setColor(cr, palette.indicator, opacity: opacity * timeline.dot(index, sinceSlow: sinceSlow))
                cairo_arc(cr, rect.x + 4 + Double(index) * 16, rect.midY, 4, 0, 2 * Double.pi)
                cairo_fill(cr)
            }
        case .spinner:
            let turn = timeline.spinner(sinceSlow: sinceSlow)
            setColor(cr, palette.indicator, opacity: opacity)
            cairo_set_line_width(cr, 3)
            cairo_new_sub_path(cr)
            // A ring whose right quarter is transparent (border-right-color), turned.
            cairo_arc(cr, rect.midX, rect.midY, 10.5, Double.pi / 4 + turn, 7 * Double.pi / 4 + turn)
            cairo_stroke(cr)
        }
    }

    private func roundedRect(_ cr: OpaquePointer, _ r: SplashLayout.Rect, radius: Double) {
        let radius = min(radius, r.width / 2, r.height / 2)
        cairo_new_sub_path(cr)
        cairo_arc(cr, r.x + r.width - radius, r.y + radius, radius, -Double.pi / 2, 0)
        cairo_arc(cr, r.x + r.width - radius, r.y + r.height - radius, radius, 0, Double.pi / 2)
        cairo_arc(cr, r.x + radius, r.y + r.height - radius, radius, Double.pi / 2, Double.pi)
        cairo_arc(cr, r.x + radius, r.y + radius, radius, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }

    private func drawProgress(_ cr: OpaquePointer, _ rect: SplashLayout.Rect, progress: Double, opacity: Double, radius: Double = 2) {
        setColor(cr, palette.indicator, opacity: opacity * 0.25)
        roundedRect(cr, rect, radius: radius)
        cairo_fill(cr)
        let filled = SplashLayout.Rect(x: rect.x, y: rect.y, width: rect.width * min(max(progress, 0), 1), height: rect.height)
        guard filled.width > 0 else { return }
        cairo_save(cr)
        roundedRect(cr, rect, radius: radius)
        cairo_clip(cr)
        setColor(cr, palette.indicator, opacity: opacity)
        cairo_rectangle(cr, filled.x, filled.y, filled.width, filled.height)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    private func drawMode(_ cr: OpaquePointer, _ mode: SplashView.ModeView, _ layout: SplashLayout, opacity: Double, offset: Double) {
        if mode.failed, let icon = layout.errorIcon { drawErrorIcon(cr, icon) }
        if let rect = layout.modeTitle {
            drawText(cr, mode.title, .errorTitle, in: rect, color: mode.failed ? palette.error : palette.foreground, opacity: opacity, offset: offset)
        }
        if let bar = layout.modeProgress, let progress = mode.progress {
            drawProgress(cr, bar, progress: progress, opacity: opacity, radius: 3)
        }
        if let rect = layout.modeMessage, let message = mode.message {
            drawText(cr, message, .step, in: rect, color: palette.secondary, opacity: opacity, offset: offset, lines: Self.stateTextLines)
        }
        if let rect = layout.modeWarning, let warning = mode.warning {
            drawText(cr, warning, .modeWarning, in: rect, color: palette.foreground, opacity: opacity, offset: offset)
        }
    }

    private func drawErrorIcon(_ cr: OpaquePointer, _ icon: SplashLayout.Rect) {
        setColor(cr, palette.error)
        cairo_arc(cr, icon.midX, icon.midY, 12, 0, 2 * Double.pi)
        cairo_fill(cr)
        cairo_set_source_rgba(cr, 1, 1, 1, 1)
        cairo_set_line_width(cr, 2)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_move_to(cr, icon.x + 8.5, icon.y + 8.5)
        cairo_line_to(cr, icon.x + 15.5, icon.y + 15.5)
        cairo_move_to(cr, icon.x + 15.5, icon.y + 8.5)
        cairo_line_to(cr, icon.x + 8.5, icon.y + 15.5)
        cairo_stroke(cr)
    }

    private func drawError(_ cr: OpaquePointer, _ error: SplashView.ErrorView, _ layout: SplashLayout, focus: SplashView.Button?) {
        if let icon = layout.errorIcon { drawErrorIcon(cr, icon) }
        if let rect = layout.errorTitle {
            drawText(cr, error.title, .errorTitle, in: rect, color: palette.error, opacity: 1, offset: 0, lines: Self.stateTextLines)
        }
        if let rect = layout.errorDetail, let detail = error.detail {
            drawText(cr, detail, .errorDetail, in: rect, color: palette.foreground, opacity: 0.7, offset: 0)
        }
        for (button, rect) in layout.buttons.map({ ($0.button, $0.rect) }) {
            let filled = button == .retry
            if filled {
                setColor(cr, palette.foreground)
                roundedRect(cr, rect, radius: 22)
                cairo_fill(cr)
            } else {
                setColor(cr, palette.foreground)
                cairo_set_line_width(cr, 2)
                roundedRect(cr, SplashLayout.Rect(x: rect.x + 1, y: rect.y + 1, width: rect.width - 2, height: rect.height - 2), radius: 21)
                cairo_stroke(cr)
            }
            let label = texts.layout(button.title, .button, width: rect.width)
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_get_pixel_extents(label, &ink, &logical)
            setColor(cr, filled ? palette.background : palette.foreground)
            cairo_move_to(cr, rect.x, rect.midY - Double(logical.height) / 2)
            pango_cairo_update_layout(cr, label)
            pango_cairo_show_layout(cr, label)
            if button == focus {
                // outline: 3px solid (the indicator's colour); outline-offset: 2px. The stroke's
                // middle 3.5 px outside the button.
                setColor(cr, palette.indicator)
                cairo_set_line_width(cr, 3)
                roundedRect(cr, SplashLayout.Rect(x: rect.x - 3.5, y: rect.y - 3.5, width: rect.width + 7, height: rect.height + 7), radius: 25.5)
                cairo_stroke(cr)
            }
        }
    }
}
