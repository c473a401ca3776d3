@testable import SplashConfig
import SplashCore
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

    /// The parser records where each key, header and inline table is, for messages.
    @Test func linesOfKeysTablesAndElements() throws {
        let table = try TOMLTable(string: """
            [ "splash" ]
            'min_display' = "1s"
            [[ step ]]
            retry . attempts = 0
            after = [
              "a",
            ]
            [step.options]
            url = "x"

            [[step]]
            id = "b"
            inline = [{ a = 1 },
              { b = 2 }]
            [x.y]
            [x]
            """)
        #expect(table.line == nil)
        #expect(table.line(of: "splash") == 1)
        let splash = try #require(table["splash"]?.table)
        #expect(splash.line == 1)
        #expect(splash.line(of: "min_display") == 2)
        #expect(splash.line(of: "timeout") == nil)
        #expect(table.line(of: "step") == 3)  // an array of tables: its first header
        let steps = try #require(table["step"]?.array).compactMap { $0.table }
        #expect(steps.map(\.line) == [3, 11])
        #expect(steps[0].line(of: "retry") == 4)  // a dotted key names the table
        #expect(steps[0]["retry"]?.table?.line == 4)
        #expect(steps[0]["retry"]?.table?.line(of: "attempts") == 4)
        #expect(steps[0].line(of: "after") == 5)  // a value over several lines: where its key is
        #expect(steps[0].line(of: "options") == 8)
        #expect(steps[0]["options"]?.table?.line(of: "url") == 9)
        #expect(steps[1].line(of: "id") == 12)
        let inline = try #require(steps[1]["inline"]?.array).compactMap { $0.table }
        #expect(inline.map(\.line) == [13, 14])
        #expect(inline[1].line(of: "b") == 14)
        // `[x.y]` names x; its own header `[x]` is where x is from then on.
        #expect(table.line(of: "x") == 16)
        #expect(table["x"]?.table?.line(of: "y") == 15)
        // Lines are not part of equality.
        var built = TOMLTable()
        built.set("min_display", .string("1s"))
        #expect(built == splash)
    }

    /// Multi-line strings, arrays and inline tables never look like headers or keys.
    @Test func multiLineValuesDoNotLookLikeHeadersOrKeys() throws {
        let text = #"""
            [[step]]
            id = "a"
            plugin = "ext"
            [step.options]
            script = """
            [[step]]
            id = "zzz"
            """
            literal = '''
            plugin = "x" '''
            matrix = [
              [1, 2],
              [3], # a comment with [[step]]
            ]
            "quoted key" = { inner = "}" }

            [[step]]
            id = "b"
            plugin = "nope"
            """#
        let table = try TOMLTable(string: text)
        let steps = try #require(table["step"]?.array).compactMap { $0.table }
        #expect(steps.map(\.line) == [1, 17])
        let options = try #require(steps[0]["options"]?.table)
        #expect(options.keys == ["script", "literal", "matrix", "quoted key"])
        #expect(options.line(of: "literal") == 9)
        #expect(options.line(of: "matrix") == 11)
        #expect(options.line(of: "quoted key") == 15)
        #expect(steps[1].line(of: "plugin") == 19)

        let catalog = PluginCatalog(manifests: [
            "ext": PluginManifest(name: "ext", executable: "/bin/true", manifestPath: "/x/ext.toml")
        ])
        #expect(throws: ConfigError(file: "f.toml", line: 19, message: "step \"b\" uses unknown plugin \"nope\"")) {
            try ConfigLoader.parse(text, file: "f.toml", catalog: catalog)
        }
    }

    @Test func crlfLineEndingsAndEmptyDocuments() throws {
        #expect(try TOMLTable(string: "").keys.isEmpty)
        let table = try TOMLTable(string: "a = 1\r\n[b]\r\nc = 'x'\r\n")
        #expect(table["b"]?.table?["c"] == .string("x"))
    }
}
