@testable import SplashConfig
import Testing

@Suite struct TOMLParserTests {
    @Test func readsEveryConstructTheConfigUses() throws {
        let table = try TOMLTable(string: #"""
            # a comment
            title = "splash" # trailing comment
            "quoted key" = 'literal \n stays'
            dotted.key.deep = true
            numbers = [1, +2, -3, 1_000, 0x1F, 0o17, 0b101, 3.5, -1e3, inf]
            nested = [[1, 2], ["a"], []]
            multi = """
            line one\
                continued "quoted" ""two""\u00e9"""
            raw = '''
            C:\path\'''
            when = 1979-05-27T07:32:00Z
            day = 1979-05-27
            at = 07:32:00
            spaced = 1979-05-27 07:32:00

            [splash]
            retry = { attempts = 3, backoff = "200ms" }

            [[step]]
            id = "a"

            [[step]]
            id = "b"
            [step.options]
            url = "https://x.invalid/c.json"
            """#)
        #expect(table["title"] == .string("splash"))
        #expect(table["quoted key"] == .string(#"literal \n stays"#))
        #expect(table["dotted"]?.table?["key"]?.table?["deep"] == .bool(true))
        #expect(table["numbers"] == .array([.int(1), .int(2), .int(-3), .int(1000), .int(31), .int(15), .int(5), .double(3.5), .double(-1000), .double(.infinity)]))
        #expect(table["nested"] == .array([.array([.int(1), .int(2)]), .array([.string("a")]), .array([])]))
        #expect(table["multi"] == .string("line onecontinued \"quoted\" \"\"two\"\"é"))
        #expect(table["raw"] == .string(#"C:\path\"#))
        #expect(table["when"] == .dateTime("1979-05-27T07:32:00Z"))
        #expect(table["day"] == .date("1979-05-27"))
        #expect(table["at"] == .time("07:32:00"))
        #expect(table["spaced"] == .dateTime("1979-05-27 07:32:00"))
        #expect(table["splash"]?.table?["retry"]?.table?["attempts"] == .int(3))
        let steps = try #require(table["step"]?.array)
        #expect(steps.count == 2)
        #expect(steps[1].table?["options"]?.table?["url"] == .string("https://x.invalid/c.json"))
        #expect(table.keys.first == "title")
    }

    @Test(arguments: [
        ("a = 1\na = 2", 2, "duplicate key \"a\""),
        ("[t]\n[t]", 2, "table \"t\" is defined more than once"),
        ("a = \"open\nb = 1", 1, "unterminated string"),
        ("a 1", 1, "expected \"=\" after the key \"a\""),
        ("a = nope", 1, "invalid value nope"),
        ("a = 1 b = 2", 1, "expected the end of the line"),
        ("a = 012", 1, "invalid value 012"),
        ("t = { x = 1 }\n[t.y]", 2, "inline table \"t\" cannot be extended"),
        ("a = [1, 2\nb = 3", 2, "expected \",\" or \"]\" in an array"),
        ("a = 1\n[a]", 2, "table \"a\" is defined more than once"),
        ("a = \"\\q\"", 1, "invalid escape"),
        ("[[a]]\n[a]", 2, "table \"a\" is defined more than once"),
    ])
    func rejectsWithTheLine(text: String, line: Int, message: String) {
        do {
            _ = try TOMLTable(string: text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line, "\(text)")
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func crlfLineEndingsAndEmptyDocuments() throws {
        #expect(try TOMLTable(string: "").keys.isEmpty)
        let table = try TOMLTable(string: "a = 1\r\n[b]\r\nc = 'x'\r\n")
        #expect(table["b"]?.table?["c"] == .string("x"))
    }
}
