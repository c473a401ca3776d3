/// Lexing for `TOMLParser`: strings in their four forms, whitespace, comments, line ends, and the
/// position of errors.
extension TOMLParser {
    // MARK: Strings

    mutating func basicString(multiline: Bool) throws(TOMLParseError) -> String {
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

    mutating func literalString(multiline: Bool) throws(TOMLParseError) -> String {
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

    mutating func skipFirstNewline() {
        if starts(with: "\r\n") {
            index += 1
        }
        if peek() == 0x0A { newline() }
    }

    // MARK: Lexing

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
    mutating func advance() { index += 1 }
    mutating func newline() {
        index += 1
        line += 1
        lineStart = index
    }

    func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { Array($0) == Array(bytes[index..<index + count]) }
    }

    mutating func expect(_ character: Unicode.Scalar) throws(TOMLParseError) {
        guard peek() == UInt8(ascii: character) else { throw failure("expected \"\(character)\"") }
        advance()
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 { advance() }
    }

    mutating func skipComment() {
        guard peek() == UInt8(ascii: "#") else { return }
        while let byte = peek(), byte != 0x0A { advance() }
    }

    mutating func skipBlankAndComments() {
        while true {
            skipSpaces()
            skipComment()
            if peek() == 0x0D { advance() }
            guard peek() == 0x0A else { return }
            newline()
        }
    }

    /// After a key/value pair or a header: only a comment until the end of the line.
    mutating func endOfLine() throws(TOMLParseError) {
        skipSpaces()
        skipComment()
        if peek() == 0x0D { advance() }
        guard let byte = peek() else { return }
        guard byte == 0x0A else { throw failure("expected the end of the line, found \(describe(byte))") }
        newline()
    }

    func failure(_ message: String) -> TOMLParseError {
        TOMLParseError(line: line, column: index - lineStart + 1, message: message)
    }

    func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "\"\(Character(Unicode.Scalar(byte)))\"" : "byte 0x\(String(byte, radix: 16))"
    }

    func quoted(_ path: [String]) -> String { "\"\(path.joined(separator: "."))\"" }

    static func isBareKey(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    static func isScalar(_ byte: UInt8) -> Bool {
        isBareKey(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) }
}
