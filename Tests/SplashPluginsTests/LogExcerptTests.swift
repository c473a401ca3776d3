import SplashPlugins
import Testing

@Suite("LogExcerpt")
struct LogExcerptTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("two\nlines\r\tand a tab", #"two\nlines\r\tand a tab"#),
        ("\u{1B}[31mred\u{7}", #"\u{1B}[31mred\u{7}"#),
        ("back\\slash", #"back\\slash"#),
        ("bidi \u{202E}txt.exe", #"bidi \u{202E}txt.exe"#),
        ("line\u{2028}separator", #"line\u{2028}separator"#),
        ("C1 \u{85} next line", #"C1 \u{85} next line"#),
        ("ünïcödé ✓", "ünïcödé ✓"),
    ])
    func escapesWhatCouldForgeALineOrDriveATerminal(text: String, expected: String) {
        #expect(LogExcerpt.of(text) == expected)
    }

    @Test func keepsOnlyTheLimit() {
        #expect(LogExcerpt.of(String(repeating: "a", count: 100), limit: 10) == "aaaaaaaaaa…")
        #expect(LogExcerpt.of("exactly", limit: 7) == "exactly")
        #expect(LogExcerpt.of(String(repeating: "b", count: 5_000)).count == LogExcerpt.defaultLimit + 1)
    }
}
