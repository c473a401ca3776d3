@testable import SplashConfig
import Testing

/// TOML 1.0, to the letter: what the specification refuses is refused (with its line), and its
/// edge cases that are valid are read right. Cases of our own, by the rules of
/// https://toml.io/en/v1.0.0 and RFC 3339.
@Suite struct TOMLConformanceTests {
    static func rejection(_ text: String) -> TOMLParseError? {
        rejection(Array(text.utf8))
    }

    static func rejection(_ bytes: [UInt8]) -> TOMLParseError? {
        var parser = TOMLParser(bytes: bytes)
        do {
            _ = try parser.parse()
            return nil
        } catch {
            return error
        }
    }

    static func value(_ text: String) throws -> TOMLValue? {
        try TOMLTable(string: text)["a"]
    }

    // MARK: Control characters

    @Test(arguments: [
        ("a = \"x\u{0}y\"", 1), ("a = \"x\u{8}y\"", 1), ("a = \"x\u{1F}y\"", 1), ("a = \"x\u{7F}y\"", 1),
        ("a = 'x\u{7F}y'", 1), ("a = 'x\u{1B}y'", 1), ("a = '''\nx\u{0}y'''", 2), ("a = \"\"\"x\u{1B}y\"\"\"", 1),
        ("a = \"\"\"x\ry\"\"\"", 1), ("a = '''x\ry'''", 1),
        ("# a comment \u{0} here\na = 1", 1), ("a = 1 # \u{7F}", 1), ("# \u{C}", 1), ("\n# bare \r in a comment\n", 2),
        ("# ok\n#\u{1F}\n", 2), ("a = 1\rb = 2", 1), ("a = 1\r", 1), ("a\u{B} = 1", 1), ("\u{C}a = 1", 1),
    ])
    func controlCharactersOtherThanTabAreRefused(text: String, line: Int) {
        let error = Self.rejection(text)
        #expect(error?.line == line, "\(text.debugDescription): \(String(describing: error))")
    }

    @Test func tabsAreAllowedInStringsAndComments() throws {
        #expect(try Self.value("a = \"x\ty\" #\tcomment") == .string("x\ty"))
        #expect(try Self.value("a = 'x\ty'") == .string("x\ty"))
        #expect(try Self.value("a = '''x\ty'''") == .string("x\ty"))
        #expect(try Self.value("a = \"\u{80}\u{FEFF}\"") == .string("\u{80}\u{FEFF}"))
    }

    // MARK: Dates and times

    @Test(arguments: [
        "2023-02-29", "1900-02-29", "2023-02-30", "2023-04-31", "2023-06-31", "2023-13-01", "2023-00-01",
        "2023-01-00", "2023-01-32", "2023-1-01", "2023-01-1", "23-01-01", "2023-01-01T", "2023-01-01X01:00:00",
        "2023-01-01T24:00:00", "2023-01-01T23:60:00", "2023-01-01T23:59:61", "2023-01-01T01:00",
        "2023-01-01T1:00:00", "2023-01-01T01:00:00.", "2023-01-01T01:00:00+24:00", "2023-01-01T01:00:00+23:60",
        "2023-01-01T01:00:00+0100", "2023-01-01T01:00:00+01", "2023-01-01T01:00:00Zx", "2023-01-01T01:00:00 Z",
        "24:00:00", "23:60:00", "23:59:61", "01:00", "1:00:00", "01:00:00Z", "01:00:00+01:00", "01:00:00.",
        "0000-00-00", "2023-01-01 01:00", "2023-01-01t01:00",
    ])
    func impossibleOrMalformedDatesAndTimesAreRefused(text: String) {
        #expect(Self.rejection("a = \(text)") != nil, "\(text)")
    }

    @Test func possibleDatesAndTimesAreRead() throws {
        #expect(try Self.value("a = 2024-02-29") == .date("2024-02-29"))
        #expect(try Self.value("a = 2000-02-29") == .date("2000-02-29"))
        #expect(try Self.value("a = 0000-02-29") == .date("0000-02-29"))
        #expect(try Self.value("a = 9999-12-31") == .date("9999-12-31"))
        #expect(try Self.value("a = 23:59:60") == .time("23:59:60"))  // RFC 3339 allows a leap second
        #expect(try Self.value("a = 00:00:00.123456789") == .time("00:00:00.123456789"))
        #expect(try Self.value("a = 1979-05-27T07:32:00") == .dateTime("1979-05-27T07:32:00"))
        #expect(try Self.value("a = 1979-05-27t07:32:00z") == .dateTime("1979-05-27t07:32:00z"))
        #expect(try Self.value("a = 1979-05-27 07:32:00.5-23:59") == .dateTime("1979-05-27 07:32:00.5-23:59"))
        #expect(try Self.value("a = 1979-05-27 # a date, then a comment") == .date("1979-05-27"))
        #expect(try TOMLTable(string: "a = [1979-05-27 07:32:00Z,07:32:00]")["a"] == .array([.dateTime("1979-05-27 07:32:00Z"), .time("07:32:00")]))
    }

    // MARK: Integers and floats

    @Test(arguments: [
        "01", "00", "0_0", "-01", "+01", "+0_1", "++1", "--1", "+-1", "-0xff", "+0xff", "-0b1", "+0o7", "1_", "_1",
        "1__2", "0x_1", "0x1_", "0xg", "0xaafz", "0o8", "0o778", "0b2", "0b0012", "0X1", "0B1", "0O1", "0x", "0o", "0b",
        "9223372036854775808", "-9223372036854775809", "0x8000000000000000", "0o1000000000000000000000",
        "0b" + String(repeating: "1", count: 64), "1a", "1-2", "1:2", "1+",
    ])
    func malformedIntegersAreRefused(text: String) {
        #expect(Self.rejection("a = \(text)") != nil, "\(text)")
    }

    @Test func integersAtTheirLimitsAreRead() throws {
        #expect(try Self.value("a = 9223372036854775807") == .int(.max))
        #expect(try Self.value("a = -9223372036854775808") == .int(.min))
        #expect(try Self.value("a = 0x7FFF_FFFF_ffff_ffff") == .int(.max))
        #expect(try Self.value("a = 0xdead_BEEF") == .int(0xDEAD_BEEF))
        #expect(try Self.value("a = 0o0_7") == .int(7))
        #expect(try Self.value("a = 0b1_0") == .int(2))
        #expect(try Self.value("a = 0x00") == .int(0))  // leading zeros are fine after a prefix
        #expect(try Self.value("a = +0") == .int(0))
        #expect(try Self.value("a = -0") == .int(0))
        #expect(try Self.value("a = 1_2_3") == .int(123))
    }

    @Test(arguments: [
        "1.", "-1.", "+1.", ".1", "-.1", "+.1", "1.e1", "1e", "1e+", "1E-", "1e_1", "1e1_", "1_.1", "1._1", "1_e1",
        "1.1.1", "1e1e1", "1e1.5", "01.5", "-01.5", "+01.5", "00.0", "0_0.0", "1__0.0", "Inf", "NaN", "+in", "infinity",
        "in_f", "n_an", "-nan_", "inf1", "1.0f", "1,0", "0x1.0", "0x1p3",
    ])
    func malformedFloatsAreRefused(text: String) {
        #expect(Self.rejection("a = \(text)") != nil, "\(text)")
    }

    @Test func floatsInEveryFormAreRead() throws {
        #expect(try Self.value("a = 1e07") == .double(1e7))  // the exponent may have leading zeros
        #expect(try Self.value("a = 1E+2") == .double(100))
        #expect(try Self.value("a = 6.626e-34") == .double(6.626e-34))
        #expect(try Self.value("a = 9_224.445_991") == .double(9224.445991))
        #expect(try Self.value("a = 1e1_0") == .double(1e10))
        #expect(try Self.value("a = 0e0") == .double(0))
        #expect(try Self.value("a = -0.0")?.double?.sign == .minus)
        #expect(try Self.value("a = +0.0") == .double(0))
        #expect(try Self.value("a = 0.1") == .double(0.1))
        #expect(try Self.value("a = -inf") == .double(-.infinity))
        #expect(try Self.value("a = +nan")?.double?.isNaN == true)
    }

    @Test(arguments: ["True", "FALSE", "tru", "truee", "t", "f", "falsey", "yes"])
    func booleansAreLowerCaseAndWhole(text: String) {
        #expect(Self.rejection("a = \(text)") != nil, "\(text)")
    }

    // MARK: Strings

    @Test(arguments: [
        #"a = "\e""#, #"a = "\x41""#, #"a = "\/""#, #"a = "\ ""#, #"a = "\u00""#, #"a = "\u+041""#, #"a = "\u-041""#,
        #"a = "\uD800""#, #"a = "\uDFFF""#, #"a = "\U00110000""#, #"a = "\UFFFFFFFF""#, #"a = "\U0001F60""#,
        "a = \"\"\"a\\  b\"\"\"", "a = \"\"\"a\\\tb\"\"\"", #"a = """a"""""""#, "a = '''a''''''", #"a = "abc"#,
        "a = 'abc\n'", #"a = "a" "b""#, #"a = "a"b"#, "a = '''a", #"a = """a"#, #"a = 'a'b'"#,
    ])
    func malformedStringsAreRefused(text: String) {
        #expect(Self.rejection(text) != nil, "\(text)")
    }

    @Test func stringsInEveryFormAreRead() throws {
        #expect(try Self.value(#"a = "\u00E9\U0001F600\b\t\n\f\r\"\\""#) == .string("é😀\u{8}\t\n\u{C}\r\"\\"))
        #expect(try Self.value("a = \"\"\"\n  one \\\n\n     two \\   \n  three\"\"\"") == .string("  one two three"))
        #expect(try Self.value("a = \"\"\"\"\"x\"\"\"\"\"") == .string("\"\"x\"\""))
        #expect(try Self.value("a = '''''x'''''") == .string("''x''"))
        #expect(try Self.value("a = '''\r\nfirst\r\nsecond'''") == .string("first\r\nsecond"))
        #expect(try Self.value("a = 'C:\\no\\escapes'") == .string("C:\\no\\escapes"))
        #expect(try Self.value("a = \"\\u0000\"") == .string("\u{0}"))  // escaped, any scalar value is fine
    }

    // MARK: Keys and tables

    @Test(arguments: [
        ("a.b.c", 1), ("\"\"\"k\"\"\" = 1", 1), ("a..b = 1", 1), (".a = 1", 1), ("a. = 1", 1), ("= 1", 1),
        ("a b = 1", 1), ("a = 1 = 2", 1), ("[a]b = 1", 1), ("[]", 1), ("[a.]", 1), ("[.a]", 1), ("[a..b]", 1),
        ("[[a]", 1), ("[a]]", 1), ("[ [a] ]", 1), ("[[a] ]", 1), ("a =\n1", 1), ("a = 1\na = 2", 2),
        ("[a]\n[a]", 2), ("[a]\nb = 1\n[a]", 3), ("a.b = 1\n[a]", 2), ("a.b = 1\n[a.b]", 2),
        ("[a]\nb.c = 1\n[a.b]", 3), ("[a.b.c]\n[a]\nb.c.d = 1", 3), ("[a.b.c.d]\n[a]\nb.c.d.e.f = 1", 3),
        ("[[a.b]]\n[a]\nb.x = 1", 3), ("a = [{ b = 1 }]\n[a.c]", 2), ("a = [1]\n[[a]]", 2), ("[[a]]\n[a]", 2),
        ("[a]\n[[a]]", 2), ("a = {}\n[a]", 2), ("a = { b = 1 }\na.c = 2", 2), ("a = { b = { c = 1 }, b.d = 2 }", 1),
        ("a = { b.c = 1, b = {} }", 1), ("a = false\na.b = true", 2), ("a.b = 1\na.b.c = 2", 2),
        ("[[albums.songs]]\n[[albums]]", 2), ("a = 1\n[a.b.c]", 2), ("[a]\nb = 1\n[a.b]", 3),
        ("[fruit]\napple.color = 'red'\n[fruit.apple]", 3), ("[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]", 3),
        ("[fruit]\napple.color = 'red'\n[[fruit.apple]]", 3), ("a = { b = 1 }\n[a.c]", 2),
        ("x.y = 1\n[a]\n[x]\ny.z = 2", 3), ("\"a\" = 1\na = 2", 2), ("'a.b' = 1\n\"a.b\" = 2", 2),
    ])
    func malformedKeysAndRedefinedTablesAreRefused(text: String, line: Int) {
        let error = Self.rejection(text)
        #expect(error?.line == line, "\(text.debugDescription): \(String(describing: error))")
    }

    @Test func tablesMayBeNamedBeforeTheyAreDefinedAndExtendedWhereTheSpecAllows() throws {
        let implicitThenExplicit = try TOMLTable(string: "[a.b.c]\nd = 1\n[a]\ne = 2")
        #expect(implicitThenExplicit["a"]?.table?["e"] == .int(2))
        #expect(implicitThenExplicit["a"]?.table?["b"]?.table?["c"]?.table?["d"] == .int(1))
        let sameSection = try TOMLTable(string: "[a]\nb.c = 1\nb.d = 2")
        #expect(sameSection["a"]?.table?["b"]?.table?.keys == ["c", "d"])
        let subTableOfDotted = try TOMLTable(string: "[fruit]\napple.color = 'red'\n[fruit.apple.texture]\nsmooth = true")
        #expect(subTableOfDotted["fruit"]?.table?["apple"]?.table?["texture"]?.table?["smooth"] == .bool(true))
        let arrayUnderDotted = try TOMLTable(string: "[fruit]\napple.color = 'red'\n[[fruit.apple.seeds]]\nsize = 2")
        #expect(arrayUnderDotted["fruit"]?.table?["apple"]?.table?["seeds"]?.array?.count == 1)
        let implicitExtendedByDottedKeys = try TOMLTable(string: "[a.b.c]\n[a]\nb.x = 1")
        #expect(implicitExtendedByDottedKeys["a"]?.table?["b"]?.table?.keys == ["c", "x"])
        let eachElementItsOwn = try TOMLTable(string: "[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2")
        #expect(eachElementItsOwn["a"]?.array?.compactMap { $0.table?["b"]?.table?["x"] } == [.int(1), .int(2)])
        let root = try TOMLTable(string: "a.b.c = 1\na.b.d = 2\n\"\" = 3\n'x y' = 4\n1 = 5\n-_ = 6")
        #expect(root.keys == ["a", "", "x y", "1", "-_"])
        let arrays = try TOMLTable(string: "a = [ 1, 2, ]\nb = [\n  1, # one\n  'x', # mixed\n  [{ c = 1 }],\n]\nc = []")
        #expect(arrays["a"] == .array([.int(1), .int(2)]))
        #expect(arrays["b"]?.array?.count == 3)
        #expect(arrays["c"] == .array([]))
        let inline = try TOMLTable(string: "a = { b.c = 1, b.d = { e = [1, {}] }, 'f' = \"\"\"\nmulti\n\"\"\" }")
        #expect(inline["a"]?.table?["b"]?.table?.keys == ["c", "d"])
        #expect(inline["a"]?.table?["f"] == .string("multi\n"))
    }

    @Test(arguments: [
        "a = { b = 1, }", "a = {\n b = 1 }", "a = { b = 1\n }", "a = { b = 1 c = 2 }", "a = { b = 1, b = 2 }",
        "a = { , }", "a = { b }", "a = { b = 1 # c\n}", "a = { b = }", "a = { b = 1",
        "a = [1,,2]", "a = [,]", "a = [1 2]", "a = [1", "a = [1,", "a = [1]]",
    ])
    func malformedInlineTablesAndArraysAreRefused(text: String) {
        #expect(Self.rejection(text) != nil, "\(text)")
    }

    // MARK: Encoding

    @Test func invalidUTF8IsRefusedWhereItIs() throws {
        let cases: [[UInt8]] = [
            [0xFF], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
            [0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ]
        for bad in cases {
            for (prefix, suffix) in [("a = 1\n# ", ""), ("a = 1\nb = \"", "\""), ("a = 1\nb = '''", "'''")] {
                let error = Self.rejection(Array(prefix.utf8) + bad + Array(suffix.utf8))
                #expect(error?.line == 2, "\(bad) in \(prefix)")
                #expect(error?.message.hasPrefix("not valid UTF-8") == true)
            }
        }
        #expect(Self.rejection([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("a = 1".utf8)) != nil)  // one mark only
        #expect(Self.rejection([0xFF, 0xFE] + Array("a = 1".utf8)) != nil)  // UTF-16
    }
}
