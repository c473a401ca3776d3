import SplashJSON
import SplashProtocol
import Testing

/// What a log line may not carry as it is: line breaks, terminal controls, invisible reordering.
@Suite struct LogEscapingTests {
    @Test func plainTextIsKept() {
        for text in ["", "step display succeeded in 1.6s", "émoji 🚀 中文 ok", "a/b \"quoted\" 'x'"] {
            #expect(LogEscaping.escaped(text) == text)
            #expect(!LogEscaping.needsEscaping(text))
        }
    }

    @Test func controlsAreWrittenAsEscapes() {
        #expect(LogEscaping.escaped("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(LogEscaping.escaped("\u{1B}[31mred\u{1B}[0m") == #"\x1b[31mred\x1b[0m"#)
        #expect(LogEscaping.escaped("\u{0}\u{7}\u{1F}\u{7F}") == #"\x00\x07\x1f\x7f"#)
        #expect(LogEscaping.escaped("back\\slash") == #"back\\slash"#)
        #expect(LogEscaping.escaped("\u{85}\u{9B}2J") == #"\u0085\u009b2J"#)
        #expect(LogEscaping.escaped("a\u{2028}b\u{2029}c") == #"a\u2028b\u2029c"#)
        #expect(LogEscaping.escaped("\u{202E}txt.exe\u{202C}\u{2066}\u{2069}\u{200E}\u{200F}\u{61C}") == #"\u202etxt.exe\u202c\u2066\u2069\u200e\u200f\u061c"#)
        #expect(LogEscaping.escaped("é\n🚀") == #"é\n🚀"#)
    }

    @Test func aForgedRecordStaysOnItsLine() {
        let forged = "x\n2026-01-01T00:00:00.000Z critical FORGED root login"
        let escaped = LogEscaping.escaped(forged)
        #expect(!escaped.contains("\n"))
        #expect(escaped == #"x\n2026-01-01T00:00:00.000Z critical FORGED root login"#)
    }

    @Test func noEscapedCharacterIsLeft() {
        let every = String(String.UnicodeScalarView((0...0x2100).compactMap(Unicode.Scalar.init)))
        let escaped = LogEscaping.escaped(every)
        #expect(!escaped.unicodeScalars.contains { LogEscaping.isEscaped($0) && $0 != "\\" })
        #expect(LogEscaping.needsEscaping(every))
    }

    @Test func jsonForLogsEscapesTheSameCharactersAndReadsBackTheSame() throws {
        let text = "a\u{1B}[2J\u{7F}\u{9B}\u{202E}\u{2028}é🚀\n\"\\"
        var writer = JSONWriter(escapingAllControls: true)
        writer.string(text)
        #expect(writer.string == #""a\u001b[2J\u007f\u009b\u202e\u2028é🚀\n\"\\""#)
        #expect(try JSONValue.parse(writer.bytes) == .string(text))
        var plain = JSONWriter()
        plain.string(text)
        #expect(try JSONValue.parse(plain.bytes) == .string(text))
    }
}
