import SplashProtocol
import Testing

/// The one rule for shown texts (`DisplayText`): what a theme's text may not hold, and what every
/// text a state carries is cleaned to, whatever its source.
@Suite struct DisplayTextTests {
    /// The characters issue 48 found in state texts: C1 controls, the separators, the
    /// bidirectional embeddings, overrides and isolates, and the C0 controls and DEL.
    static let refused: [Unicode.Scalar] = [
        "\u{0}", "\u{7}", "\n", "\r", "\t", "\u{1B}", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "\u{9F}",
        "\u{2028}", "\u{2029}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
        "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
    ]

    @Test func theRuleRefusesControlsSeparatorsAndOverridesAndKeepsTheRest() {
        for scalar in Self.refused {
            #expect(DisplayText.isRefused(scalar), "U+\(String(scalar.value, radix: 16))")
            #expect(DisplayText.isRefused("a\(Character(scalar))b"), "U+\(String(scalar.value, radix: 16))")
        }
        // Text of any script, the no-break space, emoji and combining marks are kept; so are the
        // bidirectional marks, which reorder no letters and right-to-left texts need.
        for text in ["Signing in…", "Écran d'accueil", "שלום", "مرحبا", "日本語", "a\u{A0}b", "😀", "e\u{301}", "a\u{200E}b",
                     "\u{200F}", "\u{61C}", "\u{A0}", "\u{2027}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{FFFD}"] {
            #expect(!DisplayText.isRefused(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(DisplayText.cleaned(text) == text)
        }
    }

    @Test func lineBreaksBecomeOneSpaceAndOtherRefusedCharactersGo() {
        #expect(DisplayText.cleaned("Copying\nimage") == "Copying image")
        #expect(DisplayText.cleaned("a\r\n\r\nb") == "a b")
        #expect(DisplayText.cleaned("a\tb\u{B}c\u{C}d\u{85}e\u{2028}f\u{2029}g") == "a b c d e f g")
        #expect(DisplayText.cleaned("\n\nleading and trailing\n") == "leading and trailing")
        #expect(DisplayText.cleaned("a \n b") == "a  b", "no space added beside a space")
        #expect(DisplayText.cleaned("a\n \nb") == "a b")
        #expect(DisplayText.cleaned(String(repeating: "\n", count: 1000)) == "")
        #expect(DisplayText.cleaned("x" + String(repeating: "\n", count: 1000) + "y") == "x y")
        #expect(DisplayText.cleaned("\u{1B}[2Jred\u{7}") == "[2Jred")
        #expect(DisplayText.cleaned("gpj.\u{202E}exe") == "gpj.exe", "no override turns the text around")
        #expect(DisplayText.cleaned("\u{2067}abc\u{2069}\u{202A}d\u{202C}") == "abcd")
        #expect(DisplayText.cleaned("a\u{80}b\u{9F}c\u{7F}d\u{0}e") == "abcde")
        // The result follows the rule, whatever went in.
        let everything = String(String.UnicodeScalarView(Self.refused)) + "ok" + String(String.UnicodeScalarView(Self.refused))
        #expect(DisplayText.cleaned(everything) == "ok")
    }

    /// Every state goes to clients through `bounded()`: each text it shows comes out cleaned.
    @Test func everyTextAStateShowsIsCleanedOnItsWayOut() throws {
        let hostile = "Step\u{85}one\u{202E}\u{9B}2J" + String(repeating: "\n", count: 1000) + "done\u{2028}"
        var state = StateMessage(
            seq: 3, launch: "l", phase: .error, slow: true, progress: 0.5, message: hostile, elapsedMs: 10,
            steps: [.init(id: "a", status: .failed, attempt: 1, durationMs: 3, label: "A\nB", reason: hostile)],
            error: ErrorInfo(code: .stepFailed, message: hostile, step: "a", actions: [.retry], detail: hostile),
            destination: nil)
        state.mode = .update
        state.update = UpdateStatus(source: .psplash, progress: 0.5, message: hostile, result: .failed, error: hostile)
        let clean = "Step one2J done"
        let bounded = state.bounded().state
        #expect(bounded.message == clean)
        #expect(bounded.error?.message == clean && bounded.error?.detail == clean)
        #expect(bounded.update?.message == clean && bounded.update?.error == clean)
        #expect(bounded.steps[0].reason == clean && bounded.steps[0].label == "A B")
        guard case .state(let read)? = ServerMessage.decode(ServerMessage.state(state).line()) else {
            Issue.record("not a state")
            return
        }
        #expect(read == bounded)
    }
}
