/// A reader of TOML 1.0 documents: tables, arrays of tables, dotted and quoted keys, inline
/// tables, arrays, all four string forms, integers (decimal, hex, octal, binary), floats,
/// booleans, and dates and times (kept as text). Written for the daemon's config and plugin
/// manifests; it keeps the daemon free of Foundation and C++.
struct TOMLParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    /// A table under construction: plain tables can be reopened by headers, inline ones cannot.
    private final class Box {
        var order: [String] = []
        var items: [String: Item] = [:]
        var defined = false
        var inline = false
        init(inline: Bool = false) { self.inline = inline }
    }

    private enum Item {
        case value(TOMLValue)
        case table(Box)
        case tables([Box])
    }

    mutating func parse() throws(TOMLParseError) -> TOMLTable {
        let root = Box()
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
        advance()
        let arrayOfTables = peek() == UInt8(ascii: "[")
        if arrayOfTables { advance() }
        skipSpaces()
        let path = try key()
        skipSpaces()
        try expect("]")
        if arrayOfTables { try expect("]") }
        var box = root
        for part in path.dropLast() { box = try descend(box, part, viaHeader: true) }
        let last = path.last!
        if arrayOfTables {
            let table = Box()
            switch box.items[last] {
            case nil:
                box.order.append(last)
                box.items[last] = .tables([table])
            case .tables(let tables)?:
                box.items[last] = .tables(tables + [table])
            default:
                throw failure("\(quoted(path)) is already defined and is not an array of tables")
            }
            return table
        }
        switch box.items[last] {
        case nil:
            let table = Box()
            table.defined = true
            box.order.append(last)
            box.items[last] = .table(table)
            return table
        case .table(let table)? where !table.defined && !table.inline:
            table.defined = true
            return table
        default:
            throw failure("table \(quoted(path)) is defined more than once")
        }
    }

    /// The table at `part` inside `box`, created when missing.
    private mutating func descend(_ box: Box, _ part: String, viaHeader: Bool) throws(TOMLParseError) -> Box {
        switch box.items[part] {
        case nil:
            let table = Box()
            box.order.append(part)
            box.items[part] = .table(table)
            return table
        case .table(let table)?:
            guard !table.inline else { throw failure("inline table \"\(part)\" cannot be extended") }
            return table
        case .tables(let tables)? where viaHeader:
            return tables.last!
        default:
            throw failure("key \"\(part)\" is already defined as a value")
        }
    }

    private mutating func keyValue(into table: Box) throws(TOMLParseError) {
        let path = try key()
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else { throw failure("expected \"=\" after the key \(quoted(path))") }
        advance()
        skipSpaces()
        let value = try self.value()
        var box = table
        for part in path.dropLast() { box = try descend(box, part, viaHeader: false) }
        let last = path.last!
        guard box.items[last] == nil else { throw failure("duplicate key \(quoted(path))") }
        box.order.append(last)
        box.items[last] = value
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
            advance()
        }
    }

    // MARK: Values

    private mutating func value() throws(TOMLParseError) -> Item {
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
            return .value(try array())
        case UInt8(ascii: "{"):
            return .table(try inlineTable())
        default:
            return .value(try scalar())
        }
    }

    private mutating func plainValue() throws(TOMLParseError) -> TOMLValue {
        switch try value() {
        case .value(let value): value
        case .table(let box): .table(Self.freeze(box))
        case .tables(let boxes): .array(boxes.map { .table(Self.freeze($0)) })
        }
    }

    private mutating func array() throws(TOMLParseError) -> TOMLValue {
        advance()
        var elements: [TOMLValue] = []
        while true {
            skipBlankAndComments()
            if peek() == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            }
            elements.append(try plainValue())
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

    private mutating func inlineTable() throws(TOMLParseError) -> Box {
        advance()
        let box = Box(inline: false)
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

    // MARK: Strings

    private mutating func basicString(multiline: Bool) throws(TOMLParseError) -> String {
        var out: [UInt8] = []
        if multiline { skipFirstNewline() }
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                if !multiline {
                    advance()
                    break
                }
                // `"""` ends the string; up to two quotes just before it belong to the string.
                var quotes = 0
                while index + quotes < bytes.count && bytes[index + quotes] == byte { quotes += 1 }
                if quotes >= 3 {
                    guard quotes <= 5 else { throw failure("too many quotes in a multi-line string") }
                    out.append(contentsOf: repeatElement(byte, count: quotes - 3))
                    index += quotes
                    break
                }
                out.append(contentsOf: repeatElement(byte, count: quotes))
                index += quotes
            } else if byte == UInt8(ascii: "\\") {
                advance()
                guard let escape = peek() else { throw failure("unterminated string") }
                if multiline && (escape == 0x0A || escape == 0x0D || escape == 0x20 || escape == 0x09) {
                    // A line-ending backslash trims the newline and the whitespace after it.
                    while let next = peek(), next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D {
                        if next == 0x0A { newline() } else { advance() }
                    }
                    continue
                }
                advance()
                switch escape {
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "e"): out.append(0x1B)
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "u"), UInt8(ascii: "U"):
                    let count = escape == UInt8(ascii: "u") ? 4 : 8
                    guard index + count <= bytes.count,
                        let code = UInt32(String(decoding: bytes[index..<index + count], as: UTF8.self), radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { throw failure("invalid unicode escape") }
                    index += count
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw failure("invalid escape \\\(describe(escape))")
                }
            } else if byte == 0x0A {
                guard multiline else { throw failure("unterminated string") }
                out.append(byte)
                newline()
            } else if byte < 0x20 && byte != 0x09 && byte != 0x0D {
                throw failure("control character in a string")
            } else {
                out.append(byte)
                advance()
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
        return text
    }

    private mutating func literalString(multiline: Bool) throws(TOMLParseError) -> String {
        if multiline { skipFirstNewline() }
        let start = index
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            if byte == UInt8(ascii: "'") && (!multiline || starts(with: "'''")) {
                var quotes = 1
                if multiline { while index + quotes < bytes.count && bytes[index + quotes] == byte { quotes += 1 } }
                guard quotes <= 5 else { throw failure("too many quotes in a multi-line string") }
                let end = multiline ? index + quotes - 3 : index
                let text = bytes[start..<end]
                index += quotes
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8")
                }
                return string
            }
            if byte == 0x0A {
                guard multiline else { throw failure("unterminated string") }
                newline()
            } else {
                advance()
            }
        }
    }

    private mutating func skipFirstNewline() {
        if starts(with: "\r\n") {
            index += 1
        }
        if peek() == 0x0A { newline() }
    }

    // MARK: Lexing

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
    private mutating func advance() { index += 1 }
    private mutating func newline() {
        index += 1
        line += 1
        lineStart = index
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { Array($0) == Array(bytes[index..<index + count]) }
    }

    private mutating func expect(_ character: Unicode.Scalar) throws(TOMLParseError) {
        guard peek() == UInt8(ascii: character) else { throw failure("expected \"\(character)\"") }
        advance()
    }

    private mutating func skipSpaces() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 { advance() }
    }

    private mutating func skipComment() {
        guard peek() == UInt8(ascii: "#") else { return }
        while let byte = peek(), byte != 0x0A { advance() }
    }

    private mutating func skipBlankAndComments() {
        while true {
            skipSpaces()
            skipComment()
            if peek() == 0x0D { advance() }
            guard peek() == 0x0A else { return }
            newline()
        }
    }

    /// After a key/value pair or a header: only a comment until the end of the line.
    private mutating func endOfLine() throws(TOMLParseError) {
        skipSpaces()
        skipComment()
        if peek() == 0x0D { advance() }
        guard let byte = peek() else { return }
        guard byte == 0x0A else { throw failure("expected the end of the line, found \(describe(byte))") }
        newline()
    }

    private func failure(_ message: String) -> TOMLParseError {
        TOMLParseError(line: line, column: index - lineStart + 1, message: message)
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "\"\(Character(Unicode.Scalar(byte)))\"" : "byte 0x\(String(byte, radix: 16))"
    }

    private func quoted(_ path: [String]) -> String { "\"\(path.joined(separator: "."))\"" }

    private static func isBareKey(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isScalar(_ byte: UInt8) -> Bool {
        isBareKey(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) }

    private static func freeze(_ box: Box) -> TOMLTable {
        var table = TOMLTable()
        for key in box.order {
            switch box.items[key]! {
            case .value(let value): table.set(key, value)
            case .table(let nested): table.set(key, .table(freeze(nested)))
            case .tables(let tables): table.set(key, .array(tables.map { .table(freeze($0)) }))
            }
        }
        return table
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(unicodeScalars.filter { $0 != "_" }) }
}
