@testable import SplashConfig
import Testing

/// The tagged JSON of toml-test's decoder interface, value by value.
@Suite struct TOMLTaggedJSONTests {
    static func json(_ text: String) throws -> String {
        try TOMLTaggedJSON.decode(Array(text.utf8))
    }

    @Test func everyTypeIsTaggedAsTomlTestSpecifies() throws {
        let json = try Self.json("""
            s = "a\\"b\\n\\u0001é"
            i = -42
            h = 0xff
            f = 1.5
            big = 1e23
            negzero = -0.0
            inf1 = inf
            ninf = -inf
            nan1 = -nan
            b = true
            dt = 1979-05-27 07:32:00z
            off = 1979-05-27T00:32:00.999999-07:00
            dtl = 1979-05-27t07:32:00.5
            d = 1979-05-27
            t = 07:32:00
            a = [1, "x", [2], { k = false }]
            [tbl]
            x = {}
            "quoted \\u0007 key" = ''
            [[aot]]
            y = 1
            [[aot]]
            """)
        let expected = [
            #"{"s":{"type":"string","value":"a\"b\n\u0001é"}"#,
            #""i":{"type":"integer","value":"-42"}"#,
            #""h":{"type":"integer","value":"255"}"#,
            #""f":{"type":"float","value":"1.5"}"#,
            #""big":{"type":"float","value":"1e+23"}"#,
            #""negzero":{"type":"float","value":"-0.0"}"#,
            #""inf1":{"type":"float","value":"inf"}"#,
            #""ninf":{"type":"float","value":"-inf"}"#,
            #""nan1":{"type":"float","value":"nan"}"#,
            #""b":{"type":"bool","value":"true"}"#,
            #""dt":{"type":"datetime","value":"1979-05-27T07:32:00Z"}"#,
            #""off":{"type":"datetime","value":"1979-05-27T00:32:00.999999-07:00"}"#,
            #""dtl":{"type":"datetime-local","value":"1979-05-27T07:32:00.5"}"#,
            #""d":{"type":"date-local","value":"1979-05-27"}"#,
            #""t":{"type":"time-local","value":"07:32:00"}"#,
            #""a":[{"type":"integer","value":"1"},{"type":"string","value":"x"},[{"type":"integer","value":"2"}],{"k":{"type":"bool","value":"false"}}]"#,
            #""tbl":{"x":{},"quoted \u0007 key":{"type":"string","value":""}}"#,
            #""aot":[{"y":{"type":"integer","value":"1"}},{}]}"#,
        ].joined(separator: ",")
        #expect(json == expected)
    }

    @Test func anEmptyDocumentIsAnEmptyObject() throws {
        #expect(try Self.json("") == "{}")
        #expect(try Self.json("\u{FEFF}# only a comment\n") == "{}")
    }

    @Test func theOffsetIsToldFromTheDateAndTheFraction() {
        #expect(TOMLTaggedJSON.hasOffset("1979-05-27T07:32:00Z"))
        #expect(TOMLTaggedJSON.hasOffset("1979-05-27T07:32:00.123+01:00"))
        #expect(TOMLTaggedJSON.hasOffset("1979-05-27T07:32:00-00:00"))
        #expect(!TOMLTaggedJSON.hasOffset("1979-05-27T07:32:00"))
        #expect(!TOMLTaggedJSON.hasOffset("1979-05-27 07:32:00.123456"))
        #expect(TOMLTaggedJSON.normalized("1979-05-27 07:32:00z") == "1979-05-27T07:32:00Z")
    }

    @Test func anInvalidDocumentIsTheParsersError() {
        #expect(throws: TOMLParseError(line: 2, column: 5, message: "invalid value 01")) {
            try Self.json("a = 1\nb = 01")
        }
    }
}
