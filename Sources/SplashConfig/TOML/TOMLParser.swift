/// A reader of TOML 1.0 documents: tables, arrays of tables, dotted and quoted keys, inline
/// tables, arrays, all four string forms, integers (decimal, hex, octal, binary), floats,
/// booleans, and dates and times (kept as text). Written for the daemon's config and plugin
/// manifests; it keeps the daemon free of Foundation and C++.
struct TOMLParser {
    /// How deep arrays and tables may nest, counting every array and table (inline, named by a
    /// header or by a dotted key) from the root: deeper documents are refused, so that no walk
    /// over a parsed value (conversion, comparison, release) can exhaust the stack.
    static let maximumDepth = 128

    // Internal, not private: the lexing in TOMLParser+Lexing.swift reads and moves them.
    let bytes: [UInt8]
    var index = 0
    /// The 1-based line `index` is on.
    var line = 1
    var lineStart = 0

    init(_ text: String) { self.init(bytes: Array(text.utf8)) }

    /// A parser of `bytes`; a UTF-8 byte-order mark at the start is skipped (TOML 1.0 allows it).
    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
    }

    /// A table under construction: plain tables can be reopened by headers, inline ones cannot.
    private final class Box {
        var order: [String] = []
        var items: [String: Item] = [:]
        /// The line each key was written on (a sub-table's: its header, or where it was first named).
        var lines: [String: Int] = [:]
        /// The line the table starts on; nil for the root.
        var line: Int?
        var defined = false
        var inline = false
        /// How many arrays and tables hold it, itself included (the root: 0).
        let depth: Int
        init(line: Int?, depth: Int, inline: Bool = false) {
            self.line = line
            self.depth = depth
            self.inline = inline
        }

        /// Adds `key`, first written on `line`.
        func add(_ key: String, _ item: Item, line: Int) {
            order.append(key)
            items[key] = item
            lines[key] = line
        }
    }

    /// An array of tables under construction, appended to in place (a copy of the array per
    /// `[[header]]` made loading quadratic in the number of steps).
    private final class Boxes {
        var elements: [Box]
        init(_ first: Box) { elements = [first] }
    }

    private enum Item {
        case value(TOMLValue)
        case table(Box)
        case tables(Boxes)
    }

    mutating func parse() throws(TOMLParseError) -> TOMLTable {
        let root = Box(line: nil, depth: 0)
        var current = root
        while true {
            skipBlankAndComments()
            guard let byte = peek() else { break }
            if byte == UInt8(ascii: "[") {
                current = try header(root)
            } else {
                try keyValue(into: current)
            }
            try endOfLine()
        }
        return Self.freeze(root)
    }

    // MARK: Structure

    private mutating func header(_ root: Box) throws(TOMLParseError) -> Box {
        let headerLine = line
        advance()
        let arrayOfTables = peek() == UInt8(ascii: "[")
        if arrayOfTables { advance() }
        skipSpaces()
        let path = try key()
        skipSpaces()
        try expect("]")
        if arrayOfTables { try expect("]") }
        var box = root
        for part in path.dropLast() { box = try descend(box, part, viaHeader: true, line: headerLine) }
        guard let last = path.last else { throw failure("expected a key") }
        if arrayOfTables {
            // The array is a level, and each table in it another.
            try checkDepth(box.depth + 2)
            let table = Box(line: headerLine, depth: box.depth + 2)
            switch box.items[last] {
            case nil:
                box.add(last, .tables(Boxes(table)), line: headerLine)
            case .tables(let tables)?:
                tables.elements.append(table)
            default:
                throw failure("\(quoted(path)) is already defined and is not an array of tables")
            }
            return table
        }
        switch box.items[last] {
        case nil:
            try checkDepth(box.depth + 1)
            let table = Box(line: headerLine, depth: box.depth + 1)
            table.defined = true
            box.add(last, .table(table), line: headerLine)
            return table
        case .table(let table)? where !table.defined && !table.inline:
            // Named before by a dotted key or header; from now on it is where its header is.
            table.defined = true
            table.line = headerLine
            box.lines[last] = headerLine
            return table
        default:
            throw failure("table \(quoted(path)) is defined more than once")
        }
    }

    /// The table at `part` inside `box`, created when missing (named on `line`).
    private mutating func descend(_ box: Box, _ part: String, viaHeader: Bool, line: Int) throws(TOMLParseError) -> Box {
        switch box.items[part] {
        case nil:
            try checkDepth(box.depth + 1)
            let table = Box(line: line, depth: box.depth + 1)
            box.add(part, .table(table), line: line)
            return table
        case .table(let table)?:
            guard !table.inline else { throw failure("inline table \"\(part)\" cannot be extended") }
            return table
        case .tables(let tables)? where viaHeader:
            guard let last = tables.elements.last else { throw failure("key \"\(part)\" is already defined as a value") }
            return last
        default:
            throw failure("key \"\(part)\" is already defined as a value")
        }
    }

    private mutating func keyValue(into table: Box) throws(TOMLParseError) {
        let keyLine = line
        let path = try key()
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else { throw failure("expected \"=\" after the key \(quoted(path))") }
        advance()
        skipSpaces()
        // A container value sits one level below the tables its dotted key names.
        let value = try self.value(depth: table.depth + path.count)
        var box = table
        for part in path.dropLast() { box = try descend(box, part, viaHeader: false, line: keyLine) }
        guard let last = path.last else { throw failure("expected a key") }
        guard box.items[last] == nil else { throw failure("duplicate key \(quoted(path))") }
        box.add(last, value, line: keyLine)
    }

    /// A dotted key: bare, "basic" or 'literal' parts.
    private mutating func key() throws(TOMLParseError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let byte = peek() else { throw failure("expected a key") }
            if byte == UInt8(ascii: "\"") {
                advance()
                parts.append(try basicString(multiline: false))
            } else if byte == UInt8(ascii: "'") {
                advance()
                parts.append(try literalString(multiline: false))
            } else {
                let start = index
                while let next = peek(), Self.isBareKey(next) { advance() }
                guard index > start else { throw failure("expected a key, found \(describe(byte))") }
                parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
            }
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return parts }
            // Each part but the last names a table: a longer key nests too deep anyway.
            try checkDepth(parts.count)
            advance()
        }
    }

    // MARK: Values

    /// A value that, if it is an array or a table, is at `depth`.
    private mutating func value(depth: Int) throws(TOMLParseError) -> Item {
        guard let byte = peek() else { throw failure("expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            if starts(with: "\"\"\"") {
                index += 3
                return .value(.string(try basicString(multiline: true)))
            }
            advance()
            return .value(.string(try basicString(multiline: false)))
        case UInt8(ascii: "'"):
            if starts(with: "'''") {
                index += 3
                return .value(.string(try literalString(multiline: true)))
            }
            advance()
            return .value(.string(try literalString(multiline: false)))
        case UInt8(ascii: "["):
            return .value(try array(depth: depth))
        case UInt8(ascii: "{"):
            return .table(try inlineTable(depth: depth))
        default:
            return .value(try scalar())
        }
    }

    private mutating func plainValue(depth: Int) throws(TOMLParseError) -> TOMLValue {
        switch try value(depth: depth) {
        case .value(let value): value
        case .table(let box): .table(Self.freeze(box))
        case .tables(let boxes): .array(boxes.elements.map { .table(Self.freeze($0)) })
        }
    }

    /// Refuses an array or table at `depth`, past `maximumDepth`.
    private func checkDepth(_ depth: Int) throws(TOMLParseError) {
        guard depth <= Self.maximumDepth else {
            throw failure("arrays and tables nested more than \(Self.maximumDepth) levels deep")
        }
    }

    private mutating func array(depth: Int) throws(TOMLParseError) -> TOMLValue {
        try checkDepth(depth)
        advance()
        var elements: [TOMLValue] = []
        while true {
            skipBlankAndComments()
            if peek() == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            }
            elements.append(try plainValue(depth: depth + 1))
            skipBlankAndComments()
            if peek() == UInt8(ascii: ",") {
                advance()
            } else if peek() == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            } else {
                throw failure("expected \",\" or \"]\" in an array")
            }
        }
    }

    private mutating func inlineTable(depth: Int) throws(TOMLParseError) -> Box {
        try checkDepth(depth)
        let box = Box(line: line, depth: depth)
        advance()
        skipSpaces()
        if peek() == UInt8(ascii: "}") {
            advance()
            box.inline = true
            return box
        }
        while true {
            skipSpaces()
            try keyValue(into: box)
            skipSpaces()
            if peek() == UInt8(ascii: ",") {
                advance()
            } else if peek() == UInt8(ascii: "}") {
                advance()
                box.inline = true
                return box
            } else {
                throw failure("expected \",\" or \"}\" in an inline table")
            }
        }
    }

    private mutating func scalar() throws(TOMLParseError) -> TOMLValue {
        let start = index
        while let byte = peek(), Self.isScalar(byte) { advance() }
        // A date-time may put a space between the date and the time.
        if index - start == 10, peek() == UInt8(ascii: " "), index + 3 < bytes.count,
            Self.isDigit(bytes[index + 1]), Self.isDigit(bytes[index + 2]), bytes[index + 3] == UInt8(ascii: ":")
        {
            advance()
            while let byte = peek(), Self.isScalar(byte) { advance() }
        }
        let token = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !token.isEmpty else { throw failure("expected a value, found \(describe(bytes[start]))") }
        if let value = Self.scalarValue(token) { return value }
        index = start
        throw failure("invalid value \(token)")
    }

    static func scalarValue(_ token: String) -> TOMLValue? {
        switch token {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .double(.infinity)
        case "-inf": return .double(-.infinity)
        case "nan", "+nan", "-nan": return .double(.nan)
        default: break
        }
        let utf8 = Array(token.utf8)
        if utf8.count >= 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-") {
            return utf8.count == 10 ? .date(token) : .dateTime(token)
        }
        if utf8.count >= 8, utf8[2] == UInt8(ascii: ":") { return .time(token) }
        // Underscores only between digits.
        for (offset, byte) in utf8.enumerated() where byte == UInt8(ascii: "_") {
            guard offset > 0, offset + 1 < utf8.count, isHexDigit(utf8[offset - 1]), isHexDigit(utf8[offset + 1]) else {
                return nil
            }
        }
        let plain = token.replacingUnderscores()
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where plain.hasPrefix(prefix) {
            return Int(plain.dropFirst(2), radix: radix).map(TOMLValue.int)
        }
        let digits = plain.hasPrefix("+") || plain.hasPrefix("-") ? plain.dropFirst() : Substring(plain)
        guard let first = digits.utf8.first, isDigit(first) else { return nil }
        // No leading zeros in decimal numbers ("0" and "0.5" are fine).
        if digits.count > 1, first == UInt8(ascii: "0"), isDigit(digits.utf8.dropFirst().first!) { return nil }
        if plain.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            return Double(plain).map(TOMLValue.double)
        }
        return Int(plain).map(TOMLValue.int)
    }

    private static func freeze(_ box: Box) -> TOMLTable {
        var table = TOMLTable(line: box.line)
        for key in box.order {
            let line = box.lines[key]
            switch box.items[key]! {
            case .value(let value): table.set(key, value, line: line)
            case .table(let nested): table.set(key, .table(freeze(nested)), line: line)
            case .tables(let tables): table.set(key, .array(tables.elements.map { .table(freeze($0)) }), line: line)
            }
        }
        return table
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(unicodeScalars.filter { $0 != "_" }) }
}
