import Foundation
import SplashJSON
import Testing

/// The writer behind state lines and plugin environments: strings are escaped exactly where
/// JSON requires it, and text between escapes is copied unchanged.
@Suite struct JSONWriterTests {
    func written(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return writer.string
    }

    @Test func escapesQuotesBackslashesAndControlCharactersOnly() {
        #expect(written("plain") == #""plain""#)
        #expect(written("") == #""""#)
        #expect(written("a\"b\\c/d") == #""a\"b\\c/d""#)
        #expect(written("\n\r\t\u{0}\u{1f}") == #""\n\r\t\u0000\u001f""#)
        #expect(written("\"leading and trailing\\") == #""\"leading and trailing\\""#)
        #expect(written("émoji 🚀 ok\u{7f}") == "\"émoji 🚀 ok\u{7f}\"")
    }

    @Test(arguments: [Int64.min, -1_000_000_007, -10, -1, 0, 7, 10, 99, 100, 1_714_555_800_000, Int64.max])
    func integersAreWrittenInDecimal(_ value: Int64) {
        var writer = JSONWriter()
        writer.array { writer in
            writer.int(value)
            writer.bool(value > 0)
            writer.number(Double(value))
        }
        let double = Double(value)
        // A whole double is written as its exact digits (Int64.max becomes 2^63 as a double).
        let expectedDouble = Int64(exactly: double).map(String.init) ?? UInt64(exactly: double).map(String.init) ?? String(double)
        #expect(writer.string == "[\(value),\(value > 0),\(expectedDouble)]")
    }

    @Test func everyCharacterSurvivesADecoder() throws {
        var text = String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) })
        text += "é中🚀" + String(repeating: "x", count: 5000) + "\"end"
        var writer = JSONWriter()
        writer.array { writer in
            writer.string(text)
            writer.string(String(text.reversed()))
        }
        let decoded = try JSONDecoder().decode([String].self, from: Data(writer.bytes))
        #expect(decoded == [text, String(text.reversed())])
    }
}
