@testable import SplashConfig
import Testing

/// Documents of any shape get an answer: nesting is bounded, a byte-order mark is allowed.
@Suite struct TOMLLimitsTests {
    /// `TOMLParser.maximumDepth`, as documented.
    static let limit = 128

    static func nestedArrays(_ depth: Int) -> String {
        "x = " + String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) + "\n"
    }

    static func nestedInlineTables(_ depth: Int) -> String {
        "x = " + String(repeating: "{ a = ", count: depth) + "1" + String(repeating: " }", count: depth) + "\n"
    }

    static func rejection(_ text: String) -> TOMLParseError? {
        do {
            _ = try TOMLTable(string: text)
            return nil
        } catch {
            return error
        }
    }

    /// Exactly at the limit parses; one more level is refused where the level opens.
    @Test func arraysAndInlineTablesNestUpToTheLimit() throws {
        let arrays = try TOMLTable(string: Self.nestedArrays(Self.limit))
        var value = try #require(arrays["x"])
        for _ in 0..<Self.limit { value = try #require(value.array?.first) }
        #expect(value == .int(1))
        _ = try TOMLTable(string: Self.nestedInlineTables(Self.limit))

        let tooDeep = try #require(Self.rejection(Self.nestedArrays(Self.limit + 1)))
        #expect(tooDeep.line == 1)
        #expect(tooDeep.column == 5 + Self.limit)
        #expect(tooDeep.message == "arrays and tables nested more than 128 levels deep")
        let tooDeepTables = try #require(Self.rejection(Self.nestedInlineTables(Self.limit + 1)))
        #expect(tooDeepTables.message == "arrays and tables nested more than 128 levels deep")
    }

    /// The document of the report: 30,000 levels (60 KB) used to overflow the stack.
    @Test func thirtyThousandLevelsAreAnErrorNotACrash() throws {
        let error = try #require(Self.rejection("# deep\n" + Self.nestedArrays(30_000)))
        #expect(error.line == 2)
        #expect(error.message == "arrays and tables nested more than 128 levels deep")
        let tables = try #require(Self.rejection(Self.nestedInlineTables(30_000)))
        #expect(tables.message == "arrays and tables nested more than 128 levels deep")
        let mixed = "x = " + String(repeating: "[{ a = ", count: 15_000) + "1" + String(repeating: " }]", count: 15_000)
        #expect(Self.rejection(mixed)?.message == "arrays and tables nested more than 128 levels deep")
    }

    /// Tables named by dotted keys and headers are levels too: the value tree they build is as
    /// deep, and every walk over it (conversion, comparison, release) recurses as far.
    @Test func dottedKeysAndHeadersCountAsLevels() throws {
        let parts = Array(repeating: "a", count: Self.limit).joined(separator: ".")
        _ = try TOMLTable(string: "\(parts) = 1")
        _ = try TOMLTable(string: "[\(parts)]\nb = 1")
        let deeper = Array(repeating: "a", count: 30_000).joined(separator: ".")
        #expect(Self.rejection("\(deeper) = 1")?.message == "arrays and tables nested more than 128 levels deep")
        #expect(Self.rejection("[\(deeper)]")?.message == "arrays and tables nested more than 128 levels deep")
        #expect(Self.rejection("[[\(deeper)]]")?.message == "arrays and tables nested more than 128 levels deep")
        // A value under a 127-part key is at level 127: two arrays reach the limit, three pass it.
        let near = Array(repeating: "a", count: Self.limit - 1).joined(separator: ".")
        _ = try TOMLTable(string: "\(near) = [[1]]")
        #expect(Self.rejection("\(near) = [[[1]]]")?.message == "arrays and tables nested more than 128 levels deep")
        // Likewise inline tables under a header that deep.
        _ = try TOMLTable(string: "[\(near)]\nb = { c = 1 }")
        #expect(Self.rejection("[\(near)]\nb = { c = { d = 1 } }")?.message == "arrays and tables nested more than 128 levels deep")
    }

    /// TOML 1.0 allows a UTF-8 byte-order mark at the start, and only there.
    @Test func aLeadingByteOrderMarkIsSkipped() throws {
        let table = try TOMLTable(string: "\u{FEFF}a = 1\nb = \"\u{FEFF}\"")
        #expect(table["a"] == .int(1))
        #expect(table["b"] == .string("\u{FEFF}"))
        #expect(table.line(of: "a") == 1)
        let later = try #require(Self.rejection("a = 1\n\u{FEFF}b = 2"))
        #expect(later.line == 2)
    }
}
