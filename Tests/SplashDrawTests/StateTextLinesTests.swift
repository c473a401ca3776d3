import SplashCore
@testable import SplashDraw
import SplashTheme
import Testing
import SplashScene

/// A text from the state is drawn in at most `SplashPainter.stateTextLines` lines, the last one
/// ending in `…`: a plugin's or an updater's long message (a thousand lines, or a kilobyte of
/// words) no longer pushes the rest of the view, the buttons included, off the screen.
extension SplashPainterTests {
    /// 1.4 KB of words, and a thousand lines (as the daemon before issue 48 passed them on).
    static let longTexts = [
        (1...200).map { "word\($0)" }.joined(separator: " "),
        (1...1000).map { "line \($0)" }.joined(separator: "\n"),
    ]

    @Test(arguments: longTexts)
    func theUpdatersLongMessageTakesThreeLinesAndTheWarningStaysOnScreen(text: String) throws {
        let painter = try painter()
        let view = SplashView(mode: .init(title: "Installing update", progress: 0.5, message: text, warning: "Do not turn off the device"))
        let layout = painter.layout(view, width: 1280, height: 800)
        let message = try #require(layout.modeMessage), warning = try #require(layout.modeWarning)
        #expect(message.height == Double(SplashPainter.stateTextLines) * 18, "three 18 px lines")
        try #require(warning.y == message.maxY + 16 && warning.maxY <= 800, "the warning on screen, under the message: \(warning)")
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(view, at: .init(sinceShown: 9000), into: image)
        #expect(count(image, message, differingFrom: Self.teal) > 300, "the message is drawn")
        #expect(count(image, warning, differingFrom: Self.teal) > 50, "the warning is drawn")
        let gap = SplashLayout.Rect(x: 0, y: message.maxY + 2, width: 1280, height: warning.y - message.maxY - 4)
        #expect(count(image, gap, differingFrom: Self.teal) == 0, "nothing of the message below its three lines")
    }

    @Test(arguments: longTexts)
    func aLongErrorTitleTakesThreeLinesAndTheButtonsStayOnScreen(text: String) throws {
        let painter = try painter()
        let view = SplashView(phase: .error, slow: true, error: .init(title: text, buttons: [.retry, .continueOffline]))
        let layout = painter.layout(view, width: 320, height: 480)
        let title = try #require(layout.errorTitle)
        #expect(title.height == Double(SplashPainter.stateTextLines) * 22, "three 22 px lines")
        try #require(layout.buttons.count == 2 && layout.buttons.allSatisfy { $0.rect.y == title.maxY + 24 && $0.rect.maxY <= 480 },
                "\(layout.buttons)")
        let image = SplashImage(width: 320, height: 480)
        painter.draw(view, at: .init(sinceShown: 9000, sinceSlow: 5000), into: image)
        let retry = layout.buttons[0].rect
        #expect(near(image.pixel(x: Int(retry.x) + 10, y: Int(retry.midY)), (255, 255, 255)), "Retry is drawn, filled")
    }

    @Test(arguments: longTexts)
    func aLongStepMessageTakesThreeLines(text: String) throws {
        let painter = try painter { $0.showStep = true }
        let view = SplashView(slow: true, step: text)
        let layout = painter.layout(view, width: 1280, height: 800)
        let step = try #require(layout.step)
        try #require(step.height == Double(SplashPainter.stateTextLines) * 18 && step.maxY <= 800, "\(step)")
        let image = SplashImage(width: 1280, height: 800)
        painter.draw(view, at: .init(sinceShown: 9000, sinceSlow: 5000), into: image)
        #expect(count(image, step, differingFrom: Self.teal) > 300, "the step's message is drawn")
        let below = SplashLayout.Rect(x: 0, y: step.maxY + 2, width: 1280, height: 800 - step.maxY - 2)
        #expect(count(image, below, differingFrom: Self.teal) == 0, "nothing of it below its three lines")
    }

    /// The cut is pango's ellipsis at the end of the third line; a text that fits is not cut.
    @Test func theThirdLineEndsInAnEllipsisOnlyWhenTheTextGoesOn() {
        let texts = TextLayouts(family: "sans-serif")
        for text in Self.longTexts {
            #expect(texts.isCut(text, .step, width: 280, lines: SplashPainter.stateTextLines))
        }
        #expect(!texts.isCut("Copying image to rootfs.0", .step, width: 280, lines: SplashPainter.stateTextLines))
        #expect(texts.measure("Copying image to rootfs.0", .step, width: 280, lines: SplashPainter.stateTextLines).height == 18)
    }
}
