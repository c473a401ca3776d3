import Foundation
import SplashCore
@testable import SplashDraw
import SplashProtocol
import SplashTheme
import Testing
import TestSupport
import SplashScene

/// The timeline, pure: design §10's instants.
@Suite struct SplashTimelineTests {
    let motion = SplashTimeline(reduceMotion: false)
    let reduced = SplashTimeline(reduceMotion: true)

    @Test func easingCurvesAreCSSs() throws {
        #expect(Easing.easeOut(0) == 0 && Easing.easeOut(1) == 1)
        // cubic-bezier(0, 0, 0.58, 1) at x = 0.5 (bisection on the curve's x, then its y).
        #expect(abs(Easing.easeOut(0.5) - 0.68464) < 0.0001)
        #expect(abs(Easing.easeIn(0.5) - 0.31536) < 0.0001)
        #expect(abs(Easing.easeInOut(0.5) - 0.5) < 0.001)
        var last = 0.0
        for step in 1...100 {
            let value = Easing.easeOut(Double(step) / 100)
            #expect(value >= last)
            last = value
        }
    }

    @Test func theLogoComesAt100msAndTheTextAt500ms() throws {
        #expect(motion.logo(at: 0) == (0, 0.8) && motion.logo(at: 100) == (0, 0.8))
        #expect(motion.logo(at: 400) == (1, 1))
        let middle = motion.logo(at: 250)
        #expect(middle.opacity > 0.5 && middle.opacity < 1 && middle.scale > 0.9 && middle.scale < 1)
        #expect(motion.text(at: 499) == (0, 10) && motion.text(at: 700) == (1, 0))
        #expect(motion.text(at: 600).offset > 0 && motion.text(at: 600).offset < 5)
    }

    @Test func reducedMotionFadesWithoutScalingOrSliding() throws {
        #expect(reduced.logo(at: 250).scale == 1)
        #expect(reduced.text(at: 250).opacity == reduced.logo(at: 250).opacity && reduced.text(at: 250).offset == 0)
        #expect(reduced.dot(1, sinceSlow: 1234) == 1 && reduced.spinner(sinceSlow: 300) == 0)
    }

    @Test func theDotsPulseOnceASecondEachLaterThanTheOneBefore() throws {
        #expect(abs(motion.dot(0, sinceSlow: 0) - 0.3) < 1e-9)
        #expect(abs(motion.dot(0, sinceSlow: 500) - 1) < 1e-9)
        #expect(abs(motion.dot(0, sinceSlow: 1000) - 0.3) < 1e-9)
        #expect(motion.dot(1, sinceSlow: 100) == 1, "before its 160 ms delay a dot is as styled")
        #expect(abs(motion.dot(1, sinceSlow: 660) - 1) < 1e-9)
        #expect(abs(motion.spinner(sinceSlow: 250) - Double.pi / 2) < 1e-9)
    }

    @Test func nothingMovesOnceTheEntryIsOverUnlessTheIndicatorDoes() throws {
        let loading = SplashView()
        #expect(motion.isMoving(loading, at: .init(sinceShown: 699)))
        #expect(!motion.isMoving(loading, at: .init(sinceShown: 700)))
        #expect(!reduced.isMoving(loading, at: .init(sinceShown: 400)))
        let slow = SplashView(slow: true)
        #expect(motion.isMoving(slow, at: .init(sinceShown: 60_000, sinceSlow: 50_000)), "the dots pulse")
        #expect(reduced.isMoving(slow, at: .init(sinceShown: 60_000, sinceSlow: 100)), "the indicator fades in")
        #expect(!reduced.isMoving(slow, at: .init(sinceShown: 60_000, sinceSlow: 200)))
        let error = SplashView(phase: .error, slow: true, error: .init(title: "Unable to connect", buttons: [.retry]))
        #expect(!motion.isMoving(error, at: .init(sinceShown: 60_000, sinceSlow: 50_000)))
    }
}

/// What a state shows: the view a renderer draws, and when two states look the same.
@Suite struct SplashViewTests {
    /// Loaded once: a theme that cannot be loaded fails each test that uses it, with its reason
    /// (a `try!` would end the whole run).
    static let loading = Result { try ThemeLoader.load(directory: Binaries.packageRoot + "/renderer/themes/reference").theme }
    static var theme: Theme { get throws { try loading.get() } }

    static func state(_ fields: String) -> StateMessage {
        let phase = fields.contains(#""phase":"#) ? "" : #""phase":"loading","#
        let line = #"{"type":"state","seq":1,"launch":"l",\#(phase)"reason":"boot","slow":false,"progress":0.3,"elapsed_ms":10,"steps":[]"#
            + (fields.isEmpty ? "" : "," + fields) + "}"
        guard case .state(let state)? = ServerMessage.decode(Array(line.utf8)) else { fatalError("not a state: \(line)") }
        return state
    }

    @Test func statesThatLookAlikeAreTheSameViewSoNothingIsRedrawn() throws {
        // The reference theme shows neither progress nor the step: only phase and slow count.
        let a = SplashView(state: Self.state(#""message":"Signing in""#), theme: try Self.theme)
        let b = SplashView(state: Self.state(#""message":"Loading configuration","progress":0.9"#), theme: try Self.theme)
        #expect(a == b)
        var showing = try Self.theme
        showing.showProgress = true
        showing.showStep = true
        let c = SplashView(state: Self.state(#""message":"Signing in""#), theme: showing)
        #expect(c.step == "Signing in" && c.progress == 0.3)
        #expect(c != SplashView(state: Self.state(#""message":"Loading configuration""#), theme: showing))
    }

    @Test func anErrorTakesTheThemesWordsAndOffersItsActions() throws {
        let network = SplashView(
            state: Self.state(#""phase":"error","error":{"code":"network","message":"Unable to connect","step":"auth","actions":["retry","continue-offline"]}"#),
            theme: try Self.theme)
        #expect(network.error == .init(title: "Unable to connect", detail: SplashView.networkDetail, buttons: [.retry, .continueOffline]))
        var worded = try Self.theme
        worded.errorTexts["timeout"] = .init(title: "Still working", detail: "Hang on")
        let timeout = SplashView(
            state: Self.state(#""phase":"error","error":{"code":"timeout","message":"This is taking longer than expected","step":null,"actions":["retry"]}"#),
            theme: worded)
        #expect(timeout.error == .init(title: "Still working", detail: "Hang on", buttons: [.retry]))
    }
}

/// The reference theme drawn into memory with the same code a display gets (design §13).
@Suite struct SplashPainterTests {
    static let directory = Binaries.packageRoot + "/renderer/themes/reference"
    /// Loaded once: a theme that cannot be loaded fails each test that uses it, with its reason
    /// (a `try!` would end the whole run).
    static let loading = Result { try ThemeLoader.load(directory: directory) }
    static var loaded: ThemeLoader.Loaded { get throws { try loading.get() } }
    static var theme: Theme { get throws { try loaded.theme } }
    static let teal = (r: UInt8(0x0D), g: UInt8(0x73), b: UInt8(0x77))
    static let network = SplashView(
        phase: .error, slow: true,
        error: .init(title: "Unable to connect", detail: SplashView.networkDetail, buttons: [.retry, .continueOffline]))

    func painter(dark: Bool = false, _ change: (inout Theme) -> Void = { _ in }) throws -> SplashPainter {
        var theme = try Self.theme
        change(&theme)
        return try SplashPainter(theme: theme, files: try Self.loaded.files, directory: Self.directory, dark: dark)
    }

    @Test func aDeferredPaintersFirstFrameIsTheBackgroundWithNoTextLaidOutAndTheSameAsAnEagerOnes() throws {
        let logos = Counter()
        let deferred = try SplashPainter(theme: try Self.theme, files: try Self.loaded.files, directory: Self.directory, deferred: true) { (file, side, path) throws(SplashDrawError) -> any LogoSource in
            logos.count += 1
            return try InProcessLogo(file, side: side, path: path)
        }
        let first = SplashImage(width: 320, height: 240)
        deferred.draw(SplashView(), at: .init(sinceShown: 0), into: first)
        #expect(deferred.isBare(SplashView(), at: .init(sinceShown: 0)))
        #expect(deferred.cachedLayouts == 0, "no text laid out: fontconfig and pango wait")
        #expect(logos.count == 0, "the logo's raster is not begun")
        #expect(near(first.pixel(x: 160, y: 120), Self.teal) && near(first.pixel(x: 0, y: 0), Self.teal))
        let eager = SplashImage(width: 320, height: 240)
        try painter().draw(SplashView(), at: .init(sinceShown: 0), into: eager)
        #expect(first.packedPixels() == eager.packedPixels())
        // Later frames set it up themselves if `prepare` was not called; then it is a no-op.
        #expect(!deferred.isBare(SplashView(), at: .init(sinceShown: 5000)))
        let still = SplashImage(width: 320, height: 240)
        deferred.draw(SplashView(), at: .init(sinceShown: 5000), into: still)
        #expect(logos.count == 1 && deferred.cachedLayouts > 0)
        try deferred.prepare()
        #expect(logos.count == 1)
        let eagerStill = SplashImage(width: 320, height: 240)
        try painter().draw(SplashView(), at: .init(sinceShown: 5000), into: eagerStill)
        #expect(still.packedPixels() == eagerStill.packedPixels())
        #expect(still.hasPixels(eagerStill.packedPixels()[...]) && !still.hasPixels(first.packedPixels()[...]))
        let copy = SplashImage(width: 320, height: 240)
        copy.replacePixels(with: still.packedPixels()[...])
        #expect(copy.packedPixels() == still.packedPixels())
    }

    final class Counter: @unchecked Sendable { var count = 0 }

    /// Whether `p` is within `tolerance` of `c` in each channel.
    func near(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ c: (r: UInt8, g: UInt8, b: UInt8), _ tolerance: Int = 2) -> Bool {
        abs(Int(p.r) - Int(c.r)) <= tolerance && abs(Int(p.g) - Int(c.g)) <= tolerance && abs(Int(p.b) - Int(c.b)) <= tolerance
            && p.a == 255
    }

    /// How many pixels of the rectangle differ from `c` by more than `tolerance`.
    func count(_ image: SplashImage, _ rect: SplashLayout.Rect, differingFrom c: (r: UInt8, g: UInt8, b: UInt8), by tolerance: Int = 24) -> Int {
        var n = 0
        for y in Int(rect.y)..<Int(rect.maxY) {
            for x in Int(rect.x)..<Int(rect.x + rect.width) where !near(image.pixel(x: x, y: y), c, tolerance) { n += 1 }
        }
        return n
    }

    /// The firmware's logo (`logo = "firmware"`): at the firmware's place, its own pixels, from the
    /// first frame; the texts under it; without one, the theme's `logo_fallback`.
    @Test func theFirmwaresLogoIsDrawnWhereTheFirmwareDrewItFromTheFirstFrame() throws {
        var pixels: [UInt32] = []
        for y in 0..<58 {
            for x in 0..<193 { pixels.append(0xFF00_0000 | UInt32(x % 256) << 16 | UInt32(y * 4) << 8 | 0x33) }
        }
        let firmware = FirmwareLogo(x: 543, y: 371, width: 193, height: 58, pixels: pixels, file: [])
        var theme = try Self.theme
        theme.firmwareLogo = true
        let painter = try SplashPainter(theme: theme, files: try Self.loaded.files, directory: Self.directory, firmwareLogo: firmware)
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(SplashView(), at: .init(sinceShown: 0), into: image)
        var wrong = 0
        for y in 0..<58 {
            for x in 0..<193 {
                let p = image.pixel(x: 543 + x, y: 371 + y)
                let c = pixels[y * 193 + x]
                if p.r != UInt8(c >> 16 & 0xFF) || p.g != UInt8(c >> 8 & 0xFF) || p.b != UInt8(c & 0xFF) || p.a != 255 { wrong += 1 }
            }
        }
        #expect(wrong == 0, "the firmware's pixels, unchanged, at its place, at t = 0")
        #expect(near(image.pixel(x: 542, y: 371), Self.teal) && near(image.pixel(x: 736, y: 429), Self.teal), "and nothing else")
        let layout = painter.layout(SplashView(), width: 1280, height: 800)
        #expect(layout.logo == .init(x: 543, y: 371, width: 193, height: 58))
        #expect(layout.name.y == 453, "the name 24 px under the firmware's logo")
        // On a screen the place does not fit: centred, and still the texts under it.
        #expect(painter.layout(SplashView(), width: 480, height: 320).logo == .init(x: 143, y: 131, width: 193, height: 58))
        // No firmware logo: the theme's logo_fallback, drawn as any theme logo.
        let fallback = try SplashPainter(theme: theme, files: try Self.loaded.files, directory: Self.directory, firmwareLogo: nil)
        #expect(fallback.layout(SplashView(), width: 1280, height: 800).logo == .init(x: 580, y: 300, width: 120, height: 120))
        let later = SplashImage(width: 1280, height: 800)
        fallback.draw(SplashView(), at: .init(sinceShown: 5000), into: later)
        #expect(count(later, .init(x: 580, y: 300, width: 120, height: 120), differingFrom: Self.teal) > 1000, "the fallback logo is drawn")
    }

    @Test func theLayoutIsThePagesCSS() throws {
        let painter = try painter()
        let layout = painter.layout(SplashView(), width: 1280, height: 800)
        #expect(layout.logo == .init(x: 580, y: 300, width: 120, height: 120), "120 px, its centre 40 px above the screen's")
        #expect(layout.name.y == 444 && layout.name.height == 40, "24 px under the logo, one 40 px line")
        let tagline = try #require(layout.tagline)
        #expect(tagline.y == 492 && tagline.width == 280, "8 px under the name, at most 280 px wide")
        #expect(tagline.height == 40, "the reference tagline wraps to two 20 px lines in 280 px")
        #expect(layout.indicator == nil, "no indicator before slow")
        let slow = painter.layout(SplashView(slow: true), width: 1280, height: 800)
        #expect(slow.indicator == .init(x: 620, y: tagline.maxY + 32, width: 40, height: 24))
    }

    @Test func theErrorViewFitsAPortraitPanelAndItsButtonsAreHit() throws {
        let painter = try painter()
        let layout = painter.layout(Self.network, width: 320, height: 480)
        #expect(layout.logo.y == 24 && layout.name.y == 160, "on a small panel the logo moves up")
        #expect(layout.buttons.map(\.button) == [.retry, .continueOffline])
        let retry = layout.buttons[0].rect, offline = layout.buttons[1].rect
        #expect(retry.width == 96 && retry.height == 44 && offline.x == retry.x + retry.width + 12)
        #expect(retry.x >= 0 && offline.x + offline.width <= 320 && offline.maxY <= 480, "nothing clipped: \(layout.buttons)")
        #expect(layout.button(atX: retry.midX, y: retry.midY) == .retry)
        #expect(layout.button(atX: offline.midX, y: offline.midY) == .continueOffline)
        #expect(layout.button(atX: 5, y: 5) == nil)
    }

    @Test func theSplashIsTheThemesAtEveryPartOfThePicture() throws {
        let painter = try painter()
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: image)
        for (x, y) in [(0, 0), (1279, 0), (0, 799), (1279, 799), (640, 700)] {
            #expect(near(image.pixel(x: x, y: y), Self.teal), "background at (\(x), \(y)): \(image.pixel(x: x, y: y))")
        }
        // The white circle (the logo image covers its middle 72 px).
        for (x, y) in [(585, 360), (695, 360), (640, 305), (640, 415)] {
            #expect(near(image.pixel(x: x, y: y), (255, 255, 255)), "logo circle at (\(x), \(y)): \(image.pixel(x: x, y: y))")
        }
        #expect(near(image.pixel(x: 640, y: 340), (0x0D, 0x73, 0x77), 8), "the logo's teal body")
        // The shadow: darker than the background just under the circle, gone far from it.
        let under = image.pixel(x: 640, y: 428)
        #expect(under.g < Self.teal.g - 3, "the shadow under the circle: \(under)")
        #expect(near(image.pixel(x: 640, y: 300 - 20), Self.teal), "no shadow 20 px above")
        let layout = painter.layout(SplashView(), width: 1280, height: 800)
        #expect(count(image, layout.name, differingFrom: Self.teal) > 400, "the name is drawn")
        #expect(count(image, try #require(layout.tagline), differingFrom: Self.teal) > 200, "the tagline is drawn")
        let status = SplashLayout.Rect(x: 560, y: try #require(layout.tagline).maxY + 1, width: 160, height: 60)
        #expect(count(image, status, differingFrom: Self.teal, by: 1) == 0, "nothing under the tagline before slow")
    }

    @Test func beforeTheLogoComesTheFirstFrameIsTheBackgroundAlone() throws {
        let image = SplashImage(width: 640, height: 480)
        try painter().draw(SplashView(), at: .init(sinceShown: 0), into: image)
        #expect(count(image, .init(x: 0, y: 0, width: 640, height: 480), differingFrom: Self.teal, by: 1) == 0)
    }

    @Test func theDarkVariantAndTheIndicatorOnceSlow() throws {
        let image = SplashImage(width: 1280, height: 800)
        let painter = try painter(dark: true)
        painter.draw(SplashView(slow: true), at: .init(sinceShown: 9000, sinceSlow: 500), into: image)
        #expect(near(image.pixel(x: 3, y: 3), (0x1E, 0x1E, 0x1E)))
        let indicator = try #require(painter.layout(SplashView(slow: true), width: 1280, height: 800).indicator)
        // The first dot at its full opacity (500 ms into the pulse): the dark palette's #14A0A5.
        #expect(near(image.pixel(x: Int(indicator.x) + 4, y: Int(indicator.midY)), (0x14, 0xA0, 0xA5), 6))
    }

    @Test func theErrorViewHasItsIconTitleAndButtons() throws {
        let image = SplashImage(width: 1280, height: 800)
        let painter = try painter()
        painter.draw(Self.network, at: .init(sinceShown: 9000, sinceSlow: 5000), into: image)
        let layout = painter.layout(Self.network, width: 1280, height: 800)
        let icon = try #require(layout.errorIcon)
        #expect(near(image.pixel(x: Int(icon.x) + 12, y: Int(icon.y) + 3), (0xEA, 0x54, 0x55), 4), "the red ⊗")
        #expect(count(image, try #require(layout.errorTitle), differingFrom: Self.teal) > 100)
        let retry = layout.buttons[0].rect, offline = layout.buttons[1].rect
        #expect(near(image.pixel(x: Int(retry.x) + 10, y: Int(retry.midY)), (255, 255, 255)), "Retry is filled")
        #expect(near(image.pixel(x: Int(offline.x) + 10, y: Int(offline.midY)), Self.teal), "Continue offline is outlined")
        #expect(near(image.pixel(x: Int(offline.x) + 1, y: Int(offline.midY)), (255, 255, 255), 40), "… with a 2 px border")
    }

    @Test func theFocusedButtonHasTheRingOfTheIndicatorsColor() throws {
        let painter = try painter(dark: true)
        let layout = painter.layout(Self.network, width: 1280, height: 800)
        let offline = layout.buttons[1].rect
        let dark = (r: UInt8(0x1E), g: UInt8(0x1E), b: UInt8(0x1E)), ring = (r: UInt8(0x14), g: UInt8(0xA0), b: UInt8(0xA5))
        for focus in [nil, SplashView.Button.retry, .continueOffline] {
            let image = SplashImage(width: 1280, height: 800)
            painter.draw(Self.network, at: .init(sinceShown: 9000, sinceSlow: 5000), into: image, focus: focus)
            // 3 px wide, 2 px off the button: left of its middle, and above it.
            let left = image.pixel(x: Int(offline.x) - 4, y: Int(offline.midY))
            let above = image.pixel(x: Int(offline.midX), y: Int(offline.y) - 4)
            if focus == .continueOffline {
                #expect(near(left, ring, 8) && near(above, ring, 8), "the ring around Continue offline")
            } else {
                #expect(near(left, dark) && near(above, dark), "no ring around Continue offline when \(String(describing: focus)) has the focus")
            }
        }
    }

    static let dejaVuSerif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"

    /// DejaVu Serif Bold's file (the name is drawn bold) with its names changed to "Splshd Serif" (same length: nothing moves),
    /// a family nothing on the system has.
    static func renamedDejaVuSerif() throws -> [UInt8] {
        renamingFont([UInt8](try #require(FileManager.default.contents(atPath: dejaVuSerif))), from: "DejaVu", to: "Splshd")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: dejaVuSerif), "needs fonts-dejavu-core"))
    func aThemesOwnFontFileIsWhatItsTextIsDrawnIn() throws {
        func name(font: String, files: [String: ThemeLoader.File] = [:], fontFile: String? = nil) throws -> [UInt32] {
            var theme = try Self.theme
            theme.font = font
            theme.fontFile = fontFile
            let painter = try SplashPainter(theme: theme, files: try Self.loaded.files.merging(files) { $1 }, directory: Self.directory)
            let image = SplashImage(width: 1280, height: 800)
            painter.draw(SplashView(), at: .init(sinceShown: 9000), into: image)
            let rect = painter.layout(SplashView(), width: 1280, height: 800).name
            var pixels: [UInt32] = []
            for y in Int(rect.y)..<Int(rect.maxY) {
                for x in Int(rect.x)..<Int(rect.x + rect.width) {
                    let p = image.pixel(x: x, y: y)
                    pixels.append(UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b))
                }
            }
            return pixels
        }
        // Not installed: the fallback font. Installed under its own name: the serif.
        let fallback = try name(font: "Splshd Serif")
        let serif = try name(font: "DejaVu Serif")
        #expect(fallback != serif)
        let file = ThemeLoader.File(bytes: try Self.renamedDejaVuSerif(), contentType: "font/ttf")
        let own = try name(font: "Splshd Serif", files: ["brand.ttf": file], fontFile: "brand.ttf")
        #expect(own == serif, "drawn in the theme's own font file")
        // A file that is no font is refused, with its path.
        #expect(throws: SplashDrawError.badFont(path: Self.directory + "/bad.woff2",
                                                reason: "not a font FreeType can read (TrueType, OpenType, WOFF, WOFF2)")) {
            _ = try name(font: "Bad", files: ["bad.woff2": .init(bytes: Array("wOF2".utf8), contentType: "font/woff2")], fontFile: "bad.woff2")
        }
    }

    @Test func aQuarterTurnLaysOutTheUprightSizeAndTurnsIt() throws {
        let painter = try painter()
        // A 800 × 1280 buffer of a panel on its side: upright it is 1280 × 800.
        let image = SplashImage(width: 800, height: 1280)
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: image, rotation: .quarter)
        // Upright (x, y) lands at (800 - y, x): the circle's left edge (585, 360) at (440, 585).
        #expect(near(image.pixel(x: 440, y: 585), (255, 255, 255)))
        #expect(near(image.pixel(x: 440, y: 540), Self.teal), "upright (540, 360) is background")
        let straight = SplashImage(width: 800, height: 1280)
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: straight)
        #expect(near(straight.pixel(x: 400, y: 640 - 40), (0x0D, 0x73, 0x77), 8) || near(straight.pixel(x: 345, y: 600), (255, 255, 255)))
    }

    /// The logo is decoded from the bytes ThemeLoader read (bounded, never through a link), not
    /// read again by path; what cannot be drawn is refused with the file's path.
    @Test func aLogoThatCannotBeDrawnIsRefusedWithItsPath() throws {
        var theme = try Self.theme
        for (name, type, bytes) in [
            ("logo.svg", "image/svg+xml", Array("<svg".utf8)), ("logo.png", "image/png", Array("not a png".utf8)),
            ("logo.webp", "image/webp", Array("RIFF".utf8)),
        ] {
            theme.logo = name
            let files = [name: ThemeLoader.File(bytes: bytes, contentType: type)]
            do {
                _ = try SplashPainter(theme: theme, files: files, directory: "/themes/t")
                Issue.record("\(name) was taken")
            } catch {
                #expect(error.description.hasPrefix("/themes/t/\(name): cannot draw the logo: "), "\(error)")
            }
        }
        theme.logo = "gone.svg"
        #expect(throws: SplashDrawError.badLogo(path: "/themes/t/gone.svg", reason: "not among the theme's files")) {
            try SplashPainter(theme: theme, files: [:], directory: "/themes/t")
        }
    }

    /// `taglines` was read by check and drawn by the page, and drawn by none here: one is chosen
    /// per launch, as the page chooses it (FNV-1a of the launch id, the vectors computed with
    /// renderer/web/splash.js's function), and drawn where the tagline goes.
    @Test func oneOfTheTaglinesIsDrawnPerLaunchAsThePageChoosesIt() throws {
        var theme = try Self.theme
        theme.tagline = nil
        theme.taglines = ["One", "Two", "Three"]
        func view(_ launch: String) -> SplashView {
            SplashView(state: StateMessage(seq: 1, launch: launch, phase: .loading, slow: false, progress: 0, message: nil, elapsedMs: 0,
                                           steps: [], error: nil, destination: nil), theme: theme)
        }
        #expect(view("l-1").tagline == "One")
        #expect(view("2f1c9a0e-launch").tagline == "Two")
        #expect(view("abc").tagline == "Three")
        let painter = try SplashPainter(theme: theme, files: try Self.loaded.files, directory: Self.directory)
        let shown = view("abc")
        let rect = try #require(painter.layout(shown, width: 1280, height: 800).tagline)
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(shown, at: .init(sinceShown: 2000), into: image)
        #expect(count(image, rect, differingFrom: Self.teal, by: 48) > 20, "the tagline's ink")
        // Before a state names the launch the line keeps its place, empty.
        let before = try #require(painter.layout(SplashView(), width: 1280, height: 800).tagline)
        #expect(before.y == rect.y)
    }

    /// Every key a theme may have is drawn by this renderer as by the page, or is the page's
    /// alone for a stated reason: a key added for one renderer fails here until the other draws
    /// it or this list says why not.
    @Test func everyThemeKeyIsDrawnHereOrSaysWhyNot() throws {
        let drawn: Set<String> = [
            "name", "tagline", "taglines", "logo", "logo_fallback", "font", "font_file", "appearance", "motion", "indicator", "show_progress",
            "show_step", "rotate", "colors", "errors", "update", "shutdown",
        ]
        let notDrawn: [String: String] = [
            "destinations": "the page loads the app's URL under the splash; a native app is started by its unit",
            "app_step": "the page's hand-off waits for the app's first frame in the page; here the hand-off unit does",
            "transitions": "the page's exit into the app it loaded; here the app draws its own first frame",
        ]
        #expect(drawn.union(notDrawn.keys) == ThemeLoader.topLevelKeys)
        #expect(drawn.isDisjoint(with: notDrawn.keys))
    }

    /// A plugin whose step messages keep changing does not grow the renderer: the layouts kept
    /// are bounded (every distinct message was kept for the whole launch).
    @Test func theTextLayoutsKeptAreBounded() throws {
        let painter = try self.painter { $0.showStep = true }
        let image = SplashImage(width: 640, height: 480)
        for n in 0..<1000 {
            painter.draw(SplashView(slow: true, step: "Downloading \(n) of 1000"), at: .init(sinceShown: 2000, sinceSlow: 500), into: image)
        }
        #expect(painter.cachedLayouts <= SplashPainter.maximumLayouts)
        #expect(painter.cachedLayouts > 0)
    }

    /// The logo is drawn once, at its size, and kept: its source is asked once however many
    /// frames are drawn (librsvg drew the whole SVG on every frame: 20 ms a frame for
    /// numOctaves=50).
    @Test func theLogoIsDrawnOnceAndKept() throws {
        final class Counting: LogoSource {
            let inner: InProcessLogo
            var asked = 0
            init(_ inner: InProcessLogo) { self.inner = inner }
            func raster() -> Result<LogoRaster, SplashDrawError> {
                asked += 1
                return inner.raster()
            }
        }
        var source: Counting?
        let painter = try SplashPainter(theme: try Self.theme, files: try Self.loaded.files, directory: Self.directory) { (file, side, path) throws(SplashDrawError) -> any LogoSource in
            let counting = Counting(try InProcessLogo(file, side: side, path: path))
            source = counting
            return counting
        }
        let image = SplashImage(width: 1280, height: 800)
        for t in stride(from: 0.0, through: 2000, by: 100) { painter.draw(SplashView(), at: .init(sinceShown: t), into: image) }
        #expect(source?.asked == 1)
        let logo = painter.layout(SplashView(), width: 1280, height: 800).logo
        #expect(count(image, logo, differingFrom: Self.teal) > 1000, "the logo is drawn")
    }

    /// The native renderer's frames never wait for the logo's child: until its raster is in, the
    /// name and tagline are drawn and the logo is not (its source is never asked); once it is
    /// there, `takeLogoIfReady()` takes it and the next frame shows it.
    @Test func theNameAndTaglineAreDrawnWhileTheLogoIsStillBeingDrawn() throws {
        final class Slow: LogoSource {
            let inner: InProcessLogo
            var ready = false
            var asked = 0
            init(_ inner: InProcessLogo) { self.inner = inner }
            var isReady: Bool { ready }
            func raster() -> Result<LogoRaster, SplashDrawError> {
                asked += 1
                return inner.raster()
            }
        }
        var source: Slow?
        let painter = try SplashPainter(theme: try Self.theme, files: try Self.loaded.files, directory: Self.directory) { (file, side, path) throws(SplashDrawError) -> any LogoSource in
            let slow = Slow(try InProcessLogo(file, side: side, path: path))
            source = slow
            return slow
        }
        painter.waitsForLogo = false
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: image)
        #expect(source?.asked == 0, "never asked (asking waits) while it is not ready")
        #expect(painter.logoPending && !painter.takeLogoIfReady())
        let layout = painter.layout(SplashView(), width: 1280, height: 800)
        #expect(count(image, layout.name, differingFrom: Self.teal) > 400, "the name is drawn")
        #expect(count(image, try #require(layout.tagline), differingFrom: Self.teal) > 200, "the tagline is drawn")
        #expect(!near(image.pixel(x: 640, y: 340), (0x0D, 0x73, 0x77), 8), "not the logo's teal body")
        source?.ready = true
        #expect(painter.takeLogoIfReady() && !painter.logoPending && source?.asked == 1)
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: image)
        #expect(near(image.pixel(x: 640, y: 340), (0x0D, 0x73, 0x77), 8), "the logo's teal body, once it came")
    }

    /// A logo its source could not draw (over its budget, or one that crashed librsvg in the
    /// renderer's child) is told once, and the splash is drawn without it.
    @Test func aLogoThatFailedIsToldOnceAndTheSplashIsDrawnWithoutIt() throws {
        final class Failing: LogoSource {
            func raster() -> Result<LogoRaster, SplashDrawError> { .failure(.badLogo(path: "/t/logo.svg", reason: "over budget")) }
        }
        let painter = try SplashPainter(theme: try Self.theme, files: try Self.loaded.files, directory: Self.directory) { _, _, _ in Failing() }
        var told: [SplashDrawError] = []
        painter.onLogoFailure = { told.append($0) }
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(SplashView(), at: .init(sinceShown: 0), into: image)
        #expect(told.isEmpty, "not asked before the logo shows (100 ms into the entry animation)")
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: image)
        painter.draw(SplashView(), at: .init(sinceShown: 2100), into: image)
        #expect(told == [.badLogo(path: "/t/logo.svg", reason: "over budget")])
        // As the theme without a logo draws.
        let plain = SplashImage(width: 1280, height: 800)
        try self.painter { $0.logo = nil }.draw(SplashView(), at: .init(sinceShown: 2100), into: plain)
        var differing = 0
        for y in stride(from: 0, to: 800, by: 4) {
            for x in stride(from: 0, to: 1280, by: 4) where image.pixel(x: x, y: y) != plain.pixel(x: x, y: y) { differing += 1 }
        }
        #expect(differing == 0)
        #expect(throws: Never.self) { try painter.awaitLogo() }
    }

    /// The pictures in References/ (and docs/) are what this code draws; a change that moves a
    /// pixel noticeably fails here. SPLASHDRAW_WRITE_REFERENCES=1 writes them anew.
    @Test(arguments: ["reference-1280x800", "reference-dark-slow-1280x800", "reference-error-320x480", "reference-rotated-800x1280"])
    func theDrawingMatchesItsReferencePicture(name: String) throws {
        let image: SplashImage
        switch name {
        case "reference-1280x800":
            image = SplashImage(width: 1280, height: 800)
            try painter().draw(SplashView(), at: .init(sinceShown: 2000), into: image)
        case "reference-dark-slow-1280x800":
            image = SplashImage(width: 1280, height: 800)
            var view = SplashView(slow: true, progress: 0.4, step: "Loading configuration")
            view.progress = 0.4
            try painter(dark: true) { $0.showProgress = true; $0.showStep = true }
                .draw(view, at: .init(sinceShown: 9000, sinceSlow: 500), into: image)
        case "reference-error-320x480":
            image = SplashImage(width: 320, height: 480)
            try painter().draw(Self.network, at: .init(sinceShown: 9000, sinceSlow: 5000), into: image)
        default:
            image = SplashImage(width: 800, height: 1280)
            try painter().draw(SplashView(), at: .init(sinceShown: 2000), into: image, rotation: .quarter)
        }
        let path = "\(Binaries.packageRoot)/Tests/SplashDrawTests/References/\(name).png"
        if ProcessInfo.processInfo.environment["SPLASHDRAW_WRITE_REFERENCES"] == "1" {
            try image.writePNG(to: path)
            try image.writePNG(to: "\(Binaries.packageRoot)/docs/kms-\(name).png")
        }
        let reference = try SplashImage.readPNG(path)
        try #require(reference.width == image.width && reference.height == image.height)
        var differing = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = image.pixel(x: x, y: y), b = reference.pixel(x: x, y: y)
                if abs(Int(a.r) - Int(b.r)) > 32 || abs(Int(a.g) - Int(b.g)) > 32 || abs(Int(a.b) - Int(b.b)) > 32 { differing += 1 }
            }
        }
        // Glyph edges may differ with another FreeType or font build: a few hundred pixels at most.
        #expect(differing <= image.width * image.height / 500, "\(differing) pixels differ from \(name).png")
    }

    /// The same theme in both renderers (design §13: "the same themes"): the native drawing against
    /// the page's own screenshot from Chromium (docs/renderer-reference.png, made by the browser
    /// tests), pixel by pixel. Text is drawn by two different engines (Skia and cairo, each with
    /// its own hinting and subpixel positions), so glyph edges differ: everything else must not.
    @Test func theNativeDrawingIsThePages() throws {
        let page = try SplashImage.readPNG("\(Binaries.packageRoot)/docs/renderer-reference.png")
        try #require(page.width == 1280 && page.height == 800)
        let image = SplashImage(width: 1280, height: 800)
        let painter = try painter()
        painter.draw(SplashView(), at: .init(sinceShown: 2000), into: image)
        let layout = painter.layout(SplashView(), width: 1280, height: 800)
        let texts = [layout.name, try #require(layout.tagline)].map {
            SplashLayout.Rect(x: $0.x - 4, y: $0.y - 4, width: $0.width + 8, height: $0.height + 8)
        }
        let compared = compare(image, withPage: page, texts: texts)
        #expect(compared.outside <= 100, "background, logo, circle and shadow: \(compared.outside) pixels differ")
        #expect(compared.inside <= 4000, "the texts: \(compared.inside) pixels differ")
        for (mine, theirs) in compared.inks {
            #expect([mine.0 - theirs.0, mine.1 - theirs.1, mine.2 - theirs.2, mine.3 - theirs.3].allSatisfy { abs($0) <= 2 },
                    "the text's ink \(mine) against the page's \(theirs)")
        }
    }
}


/// The update and shutdown views drawn as the page draws them (its `#mode`).
extension SplashPainterTests {
    @Test func theUpdateViewHasItsTitleABarAsFarAsTheUpdateItsMessageAndTheWarning() throws {
        let painter = try painter()
        let view = SplashView(mode: .init(title: "Installing update", progress: 0.5, message: "Copying image to rootfs.0",
                                          warning: "Do not turn off the device"))
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(view, at: .init(sinceShown: 9000), into: image)
        let layout = painter.layout(view, width: 1280, height: 800)
        #expect(layout.tagline == nil && layout.indicator == nil && layout.buttons.isEmpty)
        let title = try #require(layout.modeTitle), bar = try #require(layout.modeProgress)
        let message = try #require(layout.modeMessage), warning = try #require(layout.modeWarning)
        #expect(bar.width == 240 && bar.height == 6 && bar.y == title.maxY + 16)
        #expect(message.y == bar.maxY + 12 && warning.y == message.maxY + 16)
        for rect in [title, message, warning] { #expect(count(image, rect, differingFrom: Self.teal) > 50) }
        let fill = try #require(painter.palette.indicator.rgba)
        let filled = image.pixel(x: Int(bar.x + bar.width / 4), y: Int(bar.midY))
        let empty = image.pixel(x: Int(bar.x + bar.width * 3 / 4), y: Int(bar.midY))
        #expect(near(filled, (UInt8(fill.red), UInt8(fill.green), UInt8(fill.blue)), 3), "the bar's first half is filled")
        #expect(!near(empty, (UInt8(fill.red), UInt8(fill.green), UInt8(fill.blue)), 40), "its second half is not")
    }

    @Test func aFailedUpdateShowsTheErrorIconAndTheShutdownViewItsWordsAlone() throws {
        let painter = try painter()
        let failed = SplashView(mode: .init(title: "Update failed", message: "signature verification failed", failed: true))
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(failed, at: .init(sinceShown: 9000), into: image)
        let layout = painter.layout(failed, width: 1280, height: 800)
        let icon = try #require(layout.errorIcon)
        #expect(near(image.pixel(x: Int(icon.x) + 12, y: Int(icon.y) + 3), (0xEA, 0x54, 0x55), 4), "the red ⊗")
        #expect(layout.modeProgress == nil && layout.modeWarning == nil)
        #expect(try #require(layout.modeTitle).y == icon.maxY + 12)
        let down = painter.layout(SplashView(mode: .init(title: "Restarting")), width: 1280, height: 800)
        #expect(down.modeTitle != nil && down.modeProgress == nil && down.modeMessage == nil && down.errorIcon == nil)
    }
}

extension SplashPainterTests {
    /// The update, failed-update and shutdown views in both renderers: the native drawing against
    /// the page's screenshots from Chromium (docs/renderer-update*.png, renderer-shutdown.png, made
    /// by the browser tests), pixel by pixel outside the texts' boxes (glyph edges differ between
    /// Skia and cairo), and each text's ink in the same box within 2 px.
    @Test(arguments: ["renderer-update", "renderer-update-failed", "renderer-shutdown"])
    func theNativeModeViewsAreThePages(name: String) throws {
        let page = try SplashImage.readPNG("\(Binaries.packageRoot)/docs/\(name).png")
        try #require(page.width == 1280 && page.height == 800)
        let words = Theme.ModeTexts()
        let mode: SplashView.ModeView =
            switch name {
            case "renderer-update":
                .init(title: words.updating, progress: 0.4, message: "Copying image to rootfs.0", warning: words.warning)
            case "renderer-update-failed":
                .init(title: words.failed, message: "signature verification failed", failed: true)
            default:
                .init(title: words.reboot)
            }
        let view = SplashView(mode: mode)
        let image = SplashImage(width: 1280, height: 800)
        let painter = try painter()
        painter.draw(view, at: .init(sinceShown: 9000), into: image)
        let layout = painter.layout(view, width: 1280, height: 800)
        let texts = [layout.name, layout.modeTitle, layout.modeMessage, layout.modeWarning].compactMap(\.self).map {
            SplashLayout.Rect(x: $0.x - 4, y: $0.y - 4, width: $0.width + 8, height: $0.height + 8)
        }
        let compared = compare(image, withPage: page, texts: texts)
        #expect(compared.outside <= 100, "background, logo, icon and bar: \(compared.outside) pixels differ")
        for (mine, theirs) in compared.inks {
            #expect([mine.0 - theirs.0, mine.1 - theirs.1, mine.2 - theirs.2, mine.3 - theirs.3].allSatisfy { abs($0) <= 2 },
                    "the text's ink \(mine) against the page's \(theirs)")
        }
    }

    /// The native drawing against the page's screenshot: the pixels that differ by more than 24
    /// in a channel outside and inside the texts' boxes, and each box's ink in both (Skia and
    /// cairo hint and place glyphs each their own way: glyph edges differ, nothing else may).
    func compare(_ image: SplashImage, withPage page: SplashImage, texts: [SplashLayout.Rect])
        -> (outside: Int, inside: Int, inks: [((Int, Int, Int, Int), (Int, Int, Int, Int))])
    {
        var outside = 0, inside = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = image.pixel(x: x, y: y), b = page.pixel(x: x, y: y)
                guard abs(Int(a.r) - Int(b.r)) > 24 || abs(Int(a.g) - Int(b.g)) > 24 || abs(Int(a.b) - Int(b.b)) > 24 else { continue }
                if texts.contains(where: { $0.contains(x: Double(x), y: Double(y)) }) { inside += 1 } else { outside += 1 }
            }
        }
        func ink(_ image: SplashImage, _ area: SplashLayout.Rect) -> (Int, Int, Int, Int) {
            var box = (Int.max, Int.max, Int.min, Int.min)
            for y in Int(area.y)..<Int(area.maxY) {
                for x in Int(area.x)..<Int(area.x + area.width) where !near(image.pixel(x: x, y: y), Self.teal, 64) {
                    box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y))
                }
            }
            return box
        }
        return (outside, inside, texts.map { (ink(image, $0), ink(page, $0)) })
    }
}
