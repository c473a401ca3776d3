import Foundation
import SplashJSON
import Testing

/// The one JSON reader (protocol lines, plugin lines, state files): RFC 8259 to the letter, each
/// refusal with its reason and byte, and the same values Foundation's `JSONDecoder` gave before it.
@Suite struct JSONReaderTests {
    func read(_ text: String) throws(JSONReadError) -> JSONValue { try JSONReader.value(of: Array(text.utf8)) }

    func refusal(_ bytes: [UInt8]) -> JSONReadError? {
        do {
            _ = try JSONReader.value(of: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryKindOfValue() throws {
        #expect(try read(" null ") == .null)
        #expect(try read("true") == .bool(true))
        #expect(try read("\t\r\nfalse\n") == .bool(false))
        #expect(try read("[]") == .array([]))
        #expect(try read("{}") == .object([:]))
        #expect(try read(#"{"a":[1,"two",{"b":null}],"c":false}"#)
            == .object(["a": .array([1, "two", .object(["b": .null])]), "c": false]))
        #expect(try read(#"{ "a" : 1 , "a" : 2 }"#) == .object(["a": 1]), "a name written twice: the first counts")
    }

    @Test func readsNumbersAsTheyWereWritten() throws {
        #expect(try read("0") == .number(0))
        #expect(try read("-0").numberValue?.sign == .minus)
        #expect(try read("1.5") == .number(1.5))
        #expect(try read("-12.5e-1") == .number(-1.25))
        #expect(try read("1E+3") == .number(1000))
        #expect(try read("1e-400") == .number(0))
        // Whole numbers past 2^53 keep every digit; written with a fraction they are Doubles.
        #expect(try read("9007199254740993") == .largeInteger(9_007_199_254_740_993))
        #expect(try read("-9223372036854775807") == .largeInteger(-9_223_372_036_854_775_807))
        #expect(try read("-9223372036854775808") == .number(-9_223_372_036_854_775_808), "-2^63: a Double holds it")
        #expect(try read("18446744073709551615") == .largeUnsignedInteger(.max))
        #expect(try read("9007199254740992") == .number(9_007_199_254_740_992))
        #expect(try read("18446744073709551616") == .number(18_446_744_073_709_551_616))
        #expect(try read("9007199254740993.0") == .number(9_007_199_254_740_992))
    }

    @Test func readsStringsAndTheirEscapes() throws {
        #expect(try read(#""plain""#) == "plain")
        #expect(try read(#""""#) == "")
        #expect(try read(#""\"\\\/\b\f\n\r\t""#) == "\"\\/\u{8}\u{c}\n\r\t")
        #expect(try read(#""caf\u00e9 \u00E9""#) == "café é")
        #expect(try read(#""\ud83d\ude80 and 🚀""#) == "🚀 and 🚀")
        #expect(try read(#""\u0000""#) == "\u{0}")
        #expect(try read(#"{"\u006b":1}"#) == .object(["k": 1]))
    }

    @Test(arguments: [
        ("", "a value missing at byte 0"), ("   ", "a value missing at byte 3"), ("nope", "not a JSON value at byte 0"),
        ("01", "a number with a leading zero at byte 1"), ("1.", "a digit expected after a decimal point at byte 2"),
        (".5", "not a JSON value at byte 0"), ("1e", "a digit expected in an exponent at byte 2"), ("-", "a digit expected in a number at byte 1"),
        ("+1", "not a JSON value at byte 0"), ("NaN", "not a JSON value at byte 0"), ("Infinity", "not a JSON value at byte 0"),
        ("1e400", "a number beyond a Double's range at byte 0"), ("1 2", "more after the value at byte 2"),
        ("[1,]", "not a JSON value at byte 3"), ("[1 2]", "',' or ']' expected in an array at byte 3"), ("[1", "an array's end missing at byte 2"),
        (#"{"a":1,}"#, "a member's name expected at byte 7"), ("{a:1}", "a member's name expected at byte 1"),
        (#"{"a" 1}"#, "':' expected after a member's name at byte 5"), (#"{"a":1"#, "an object's end missing at byte 6"),
        ("'x'", "not a JSON value at byte 0"), (#""abc"#, "a string's end missing at byte 4"), (#""a\"#, "a string's end missing at byte 3"),
        (#""\x""#, "an unknown escape in a string at byte 2"), (#""\u12""#, "four hex digits expected after \\u at byte 3"),
        (#""\ud83d""#, "a high surrogate without its low one at byte 7"), (#""\ud83d\u0041""#, "a high surrogate without its low one at byte 13"),
        (#""\ude80""#, "a low surrogate on its own at byte 7"), ("\"a\tb\"", "a control character unescaped in a string at byte 2"),
        ("\"\\n\n\"", "a control character unescaped in a string at byte 3"), ("tru", "not a JSON value at byte 0"),
        ("nul", "not a JSON value at byte 0"), ("[true false]", "',' or ']' expected in an array at byte 6"),
        ("/* no */ 1", "not a JSON value at byte 0"),
    ])
    func refusesWhatIsNotJSONAndSaysWhereAndWhy(text: String, reason: String) {
        #expect(refusal(Array(text.utf8))?.description == reason)
    }

    @Test func refusesBytesThatAreNotUTF8AndAByteOrderMark() {
        #expect(refusal([0x22, 0x61, 0xFF, 0x22])?.description == "a string that is not UTF-8 at byte 1")
        #expect(refusal([0x22, 0x5C, 0x6E, 0xC3, 0x22])?.description == "a string that is not UTF-8 at byte 1")
        #expect(refusal([0xEF, 0xBB, 0xBF] + Array("{}".utf8))?.description == "not a JSON value at byte 0")
    }

    @Test func nestingStopsAtItsBoundNotAtTheStack() throws {
        let deepest = String(repeating: "[", count: JSONReader.maximumDepth) + String(repeating: "]", count: JSONReader.maximumDepth)
        #expect(throws: Never.self) { try read(deepest) }
        let deeper = String(repeating: "[", count: JSONReader.maximumDepth + 1) + String(repeating: "]", count: JSONReader.maximumDepth + 1)
        #expect(refusal(Array(deeper.utf8))?.description == "nesting deeper than 512 at byte 512")
        // A line of a million openings (beyond any line the socket takes) is refused, not a crash.
        #expect(refusal(Array(repeating: UInt8(ascii: "{"), count: 1_000_000)) != nil)
        #expect(refusal(Array(String(repeating: #"{"a":"#, count: 100_000).utf8)) != nil)
    }

    @Test func readsAnyCollectionOfBytes() throws {
        let line = Array(#"x{"a":1}y"#.utf8)
        #expect(try JSONReader.value(of: line[1..<8]) == .object(["a": 1]))
        #expect(try JSONReader.value(of: #"{"a":1}"#.utf8) == .object(["a": 1]))
    }

    /// Foundation's `JSONDecoder` read every line before this reader: on valid texts and on
    /// thousands of texts cut and spliced from them, both accept the same ones with the same
    /// values (seeded: the same texts every run), but for one difference on purpose: a trailing
    /// comma, which Foundation let through.
    @Test func agreesWithFoundationsDecoder() throws {
        let seeds = [
            #"{"type":"state","phase":"loading","progress":0.25,"steps":[{"id":"auth","status":"running"}],"message":null}"#,
            #"{"cmd":"subscribe","id":9007199254740993,"ticks":true}"#,
            #"[1,-2,3.5,-4e2,5E-1,0,-0,true,false,null,"\u00e9\ud83d\ude80\n\"\\\/"]"#,
            #"{"a":{"b":{"c":[[],[{}],{"d":""}]}},"e":18446744073709551615,"f":-9223372036854775808}"#,
            #" { "spaced" : [ 1 , 2 ] , "x" : "y" } "#,
        ]
        var generator = SeededGenerator(seed: 0x5EED)
        var texts = seeds
        for _ in 0..<4000 {
            let a = Array(seeds.randomElement(using: &generator)!.utf8)
            let b = Array(seeds.randomElement(using: &generator)!.utf8)
            let cut = Int.random(in: 0...a.count, using: &generator)
            let from = Int.random(in: 0...b.count, using: &generator)
            var text = Array(a[..<cut]) + Array(b[from...])
            if Bool.random(using: &generator), !text.isEmpty {
                text[Int.random(in: 0..<text.count, using: &generator)] = Array(#"{}[]",:0-.e\ u"#.utf8).randomElement(using: &generator)!
            }
            texts.append(String(decoding: text, as: UTF8.self))
        }
        var accepted = 0
        var trailingCommas = 0
        for text in texts {
            let ours = try? JSONReader.value(of: Array(text.utf8))
            let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            if ours != nil { accepted += 1 }
            if ours == nil, foundation != nil {
                // The one difference: Foundation takes a comma before `}` or `]`; RFC 8259 does not.
                let squeezed = String(text.filter { !" \t\r\n".contains($0) })
                #expect(squeezed.contains(",}") || squeezed.contains(",]"), "\(Array(text.utf8))")
                trailingCommas += 1
            } else {
                #expect(ours == foundation, "\(Array(text.utf8))")
            }
        }
        #expect(accepted > 100, "the spliced texts hold valid ones too (\(accepted))")
        #expect(trailingCommas < 20)
        #expect(refusal(Array("[1,]".utf8)) != nil && (try? JSONDecoder().decode(JSONValue.self, from: Data("[1,]".utf8))) != nil)
    }
}

/// SplitMix64: a fixed sequence for a seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
