import SplashPlugins
import Testing
import SplashJSON

@Suite("LogExcerpt")
struct LogExcerptTests {
    @Test func keepsOnlyTheLimit() {
        #expect(LogExcerpt.of(String(repeating: "a", count: 100), limit: 10) == "aaaaaaaaaa…")
        #expect(LogExcerpt.of("exactly", limit: 7) == "exactly")
        #expect(LogExcerpt.of(String(repeating: "b", count: 5_000)).count == LogExcerpt.defaultLimit + 1)
    }

    /// Escaping is left to the log handlers (`LogEscaping`), which escape every record once.
    @Test func leavesTheTextAsItIs() {
        #expect(LogExcerpt.of("two\nlines \u{1B}[31m back\\slash ✓") == "two\nlines \u{1B}[31m back\\slash ✓")
    }

    /// The limit counts Unicode scalars, so a cut never splits one.
    @Test func cutsBetweenScalars() {
        #expect(LogExcerpt.of("ünï\u{202E}cödé", limit: 4) == "ünï\u{202E}…")
    }
}
