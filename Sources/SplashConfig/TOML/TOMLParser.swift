/// A reader of TOML 1.0 documents (https://toml.io/en/v1.0.0), to the letter: tables, arrays of
/// tables, dotted and quoted keys, inline tables, arrays, all four string forms, integers (decimal,
/// hex, octal, binary), floats, booleans, and dates and times (checked, kept as text). Anything
/// the specification does not allow is refused with its line and column. Written for the daemon's
/// config and plugin manifests; it keeps the daemon free of Foundation and C++.
///
/// Any input gets an answer: arrays and tables nest at most `maximumDepth` levels (the only
/// recursion, in values and in `freeze`, is bounded by it), and the work is linear in the input.
struct TOMLParser {
    /// How deep arrays and tables may nest, counting every array and table (inline, named by a
    /// header or by a dotted key) from the root: deeper documents are refused, so that no walk
    /// over a parsed value (conversion, comparison, release) can exhaust the stack.
    static let maximumDepth = 128

    // Internal, not private: the lexing in the extensions reads and moves them.
    let bytes: [UInt8]
    var index = 0
    /// The 1-based line `index` is on.
    var line = 1
    var lineStart = 0
    /// The last section number given out: the root is section 0, then each header and each
    /// inline table opens the next one. Dotted keys extend only tables of their own section.
    private var sections = 0

    init(_ text: String) { self.init(bytes: Array(text.utf8)) }

    /// A parser of `bytes`; a UTF-8 byte-order mark at the start is skipped (TOML 1.0 allows it).
    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
    }

    /// A table under construction.
    private final class Box {
        /// How the table came to be, which decides what may add to it later.
        enum Kind: Equatable {
            /// Named on the way to a header's table (`[a.b]` names `a`): its own header may still
            /// define it, and dotted keys may extend it.
            case implicit
            /// Defined by its header (or an element of an array of tables): only its own section
            /// adds keys to it, and sub-tables by their headers.
            case header
            /// Defined by dotted keys of a section: only that section's dotted keys extend it.
            case dotted(section: Int)
            /// An inline table: complete as written.
            case inline
        }

        var kind: Kind
        var order: [String] = []
        var items: [String: Item] = [:]
        /// The line each key was written on (a sub-table's: its header, or where it was first named).
        var lines: [String: Int] = [:]
        /// The line the table starts on; nil for the root.
        var line: Int?
        /// How many arrays and tables hold it, itself included (the root: 0).
        let depth: Int

        init(_ kind: Kind, line: Int?, depth: Int) {
            self.kind = kind
            self.line = line
            self.depth = depth
        }

        /// Adds `key`, first written on `line`.
        func add(_ key: String, _ item: Item, line: Int) {
            order.append(key)
            items[key] = item
            lines[key] = line
        }
    }

    /// An array of tables under construction, appended to in place (a copy per `[[header]]`
    /// made loading quadratic in the number of steps).
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
        try checkEncoding()
        let root = Box(.header, line: nil, depth: 0)
        var current = root
        var section = 0
        while true {
            try skipBlankAndComments()
            guard let byte = peek() else { break }
            if byte == UInt8(ascii: "[") {
                sections += 1
                section = sections
                current = try header(root)
            } else {
                try keyValue(into: current, section: section)
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
        let path = try key()
        try expect("]")
        if arrayOfTables { try expect("]") }
        guard let last = path.last else { throw failure("expected a key") }
        var box = root
        for part in path.dropLast() { box = try descendForHeader(box, part, line: headerLine) }
        if arrayOfTables {
            // The array is a level, and each table in it another.
            let table = Box(.header, line: headerLine, depth: box.depth + 2)
            switch box.items[last] {
            case nil:
                try checkDepth(table.depth)
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
            return try newTable(.header, named: last, in: box, line: headerLine)
        case .table(let table)? where table.kind == .implicit:
            // Named before by a header; from now on it is where its own header is.
            table.kind = .header
            table.line = headerLine
            box.lines[last] = headerLine
            return table
        default:
            throw failure("table \(quoted(path)) is defined more than once")
        }
    }

    /// A new table of `kind` at `name` inside `box`, named on `line`, one level deeper.
    private func newTable(_ kind: Box.Kind, named name: String, in box: Box, line: Int) throws(TOMLParseError) -> Box {
        try checkDepth(box.depth + 1)
        let table = Box(kind, line: line, depth: box.depth + 1)
        box.add(name, .table(table), line: line)
        return table
    }

    /// The table at `part` inside `box` on the way to a header's table, created when missing
    /// (named on `line`); in an array of tables, its last table.
    private func descendForHeader(_ box: Box, _ part: String, line: Int) throws(TOMLParseError) -> Box {
        switch box.items[part] {
        case nil:
            return try newTable(.implicit, named: part, in: box, line: line)
        case .table(let table)?:
            guard table.kind != .inline else { throw failure("inline table \(quoted([part])) cannot be extended") }
            return table
        case .tables(let tables)?:
            guard let last = tables.elements.last else { throw failure("\(quoted([part])) is an empty array") }
            return last
        case .value?:
            throw failure("key \(quoted([part])) is already defined as a value")
        }
    }

    /// The table at `part` inside `box` for a dotted key of `section`, created when missing.
    private func descendForKey(_ box: Box, _ part: String, section: Int, line: Int) throws(TOMLParseError) -> Box {
        switch box.items[part] {
        case nil:
            return try newTable(.dotted(section: section), named: part, in: box, line: line)
        case .table(let table)?:
            switch table.kind {
            case .dotted(let owner) where owner == section:
                return table
            case .implicit:
                table.kind = .dotted(section: section)
                return table
            case .inline:
                throw failure("inline table \(quoted([part])) cannot be extended")
            case .header, .dotted:
                throw failure("table \(quoted([part])) is defined elsewhere: a dotted key cannot extend it")
            }
        case .tables?:
            throw failure("\(quoted([part])) is an array of tables: a dotted key cannot extend it")
        case .value?:
            throw failure("key \(quoted([part])) is already defined as a value")
        }
    }

    private mutating func keyValue(into table: Box, section: Int) throws(TOMLParseError) {
        let keyLine = line
        let path = try key()
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else { throw failure("expected \"=\" after the key \(quoted(path))") }
        advance()
        skipSpaces()
        var box = table
        for part in path.dropLast() { box = try descendForKey(box, part, section: section, line: keyLine) }
        guard let last = path.last else { throw failure("expected a key") }
        guard box.items[last] == nil else { throw failure("duplicate key \(quoted(path))") }
        box.add(last, try value(depth: box.depth + 1), line: keyLine)
    }

    /// A dotted key: bare, "basic" or 'literal' parts.
    private mutating func key() throws(TOMLParseError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let byte = peek() else { throw failure("expected a key") }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard !starts(with: "\"\"\""), !starts(with: "'''") else {
                    throw failure("a key cannot be a multi-line string")
                }
                advance()
                parts.append(try string(quote: byte, multiline: false))
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
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            let multiline = starts(with: byte == UInt8(ascii: "'") ? "'''" : "\"\"\"")
            index += multiline ? 3 : 1
            return .value(.string(try string(quote: byte, multiline: multiline)))
        case UInt8(ascii: "["):
            return .value(try array(depth: depth))
        case UInt8(ascii: "{"):
            return .table(try inlineTable(depth: depth))
        default:
            return .value(try scalar())
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
            try skipBlankAndComments()
            if peek() == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            }
            switch try value(depth: depth + 1) {
            case .value(let value): elements.append(value)
            case .table(let box): elements.append(.table(Self.freeze(box)))
            case .tables(let boxes): elements.append(.array(boxes.elements.map { .table(Self.freeze($0)) }))
            }
            try skipBlankAndComments()
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

    /// `{ key = value, ... }`, all on one line, without a trailing comma.
    private mutating func inlineTable(depth: Int) throws(TOMLParseError) -> Box {
        try checkDepth(depth)
        let box = Box(.inline, line: line, depth: depth)
        sections += 1
        let section = sections
        advance()
        skipSpaces()
        if peek() == UInt8(ascii: "}") {
            advance()
            return box
        }
        while true {
            try inlineTableContinues(afterComma: false)
            try keyValue(into: box, section: section)
            skipSpaces()
            if peek() == UInt8(ascii: ",") {
                advance()
                skipSpaces()
                try inlineTableContinues(afterComma: true)
            } else if peek() == UInt8(ascii: "}") {
                advance()
                return box
            } else {
                try inlineTableContinues(afterComma: false)
                throw failure("expected \",\" or \"}\" in an inline table")
            }
        }
    }

    /// Explains the two mistakes the grammar of inline tables forbids: a line break and a
    /// trailing comma.
    private func inlineTableContinues(afterComma: Bool) throws(TOMLParseError) {
        switch peek() {
        case 0x0A?, 0x0D?, UInt8(ascii: "#")?:
            throw failure("an inline table must be written on one line")
        case UInt8(ascii: "}")? where afterComma:
            throw failure("an inline table cannot end with a comma")
        default:
            return
        }
    }

    /// A boolean, number, date or time: the longest run of the characters they are made of,
    /// checked as a whole.
    private mutating func scalar() throws(TOMLParseError) -> TOMLValue {
        let start = index
        while let byte = peek(), Self.isScalar(byte) { advance() }
        // A date and a time may be separated by a space: `1979-05-27 07:32:00`.
        if index - start == 10, bytes[start + 4] == UInt8(ascii: "-"), peek() == 0x20, index + 3 < bytes.count,
            Self.isDigit(bytes[index + 1]), Self.isDigit(bytes[index + 2]), bytes[index + 3] == UInt8(ascii: ":")
        {
            advance()
            while let byte = peek(), Self.isScalar(byte) { advance() }
        }
        guard index > start else {
            guard let byte = peek() else { throw failure("expected a value") }
            throw failure("expected a value, found \(describe(byte))")
        }
        let token = bytes[start..<index]
        if let value = TOMLScalar.value(of: token) { return value }
        index = start
        throw failure("invalid value \(String(decoding: token, as: UTF8.self))")
    }

    private static func freeze(_ box: Box) -> TOMLTable {
        var table = TOMLTable(line: box.line)
        for key in box.order {
            let line = box.lines[key]
            switch box.items[key] {
            case .value(let value)?: table.set(key, value, line: line)
            case .table(let nested)?: table.set(key, .table(freeze(nested)), line: line)
            case .tables(let tables)?: table.set(key, .array(tables.elements.map { .table(freeze($0)) }), line: line)
            case nil: break
            }
        }
        return table
    }
}
