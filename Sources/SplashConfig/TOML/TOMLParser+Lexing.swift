/// Lexing for `TOMLParser`: strings in their four forms, whitespace, comments, line ends, the
/// encoding, and the position of errors.
extension TOMLParser {
    // MARK: Strings

    /// A string after its opening quote(s), `"` for a basic string and `'` for a literal one.
    /// Control characters other than tab are refused; a multi-line string may hold newlines and up
    /// to two quotes in a row. Only a basic string has escapes (and, multi-line, a line-ending
    /// backslash).
    mutating func string(quote: UInt8, multiline: Bool) throws(TOMLParseError) -> String {
        var out: [UInt8] = []
        if multiline { try skipFirstNewline() }
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            switch byte {
            case quote:
                guard multiline else {
                    advance()
                    return String(decoding: out, as: UTF8.self)
                }
                if let string = try quotesInMultilineString(byte, into: &out) { return string }
            case UInt8(ascii: "\\") where quote == UInt8(ascii: "\""):
                advance()
                if multiline, let next = peek(), next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D {
                    // A line-ending backslash trims the newline and all whitespace after it.
                    skipSpaces()
                    guard try newlineIfHere() else {
                        throw failure("only whitespace may follow a line-ending backslash")
                    }
                    while true {
                        skipSpaces()
                        guard try newlineIfHere() else { break }
                    }
                    continue
                }
                try escape(into: &out)
            case 0x0A, 0x0D:
                guard multiline else { throw failure("unterminated string") }
                try newlineKept(into: &out)
            default:
                try checkStringByte(byte)
                out.append(byte)
                advance()
            }
        }
    }

    /// At a run of `quote`s inside a multi-line string: three (`"""` or `'''`) end it, and up to
    /// two just before them belong to the string; fewer than three are text. The string when it
    /// ended here, else nil.
    private mutating func quotesInMultilineString(_ quote: UInt8, into out: inout [UInt8]) throws(TOMLParseError) -> String? {
        let quotes = quoteRun()
        if quotes >= 3 {
            guard quotes <= 5 else { throw failure("too many quotes at the end of a multi-line string") }
            out.append(contentsOf: repeatElement(quote, count: quotes - 3))
            index += quotes
            return String(decoding: out, as: UTF8.self)
        }
        out.append(contentsOf: repeatElement(quote, count: quotes))
        index += quotes
        return nil
    }

    /// An escape after its backslash: `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`, no other.
    private mutating func escape(into out: inout [UInt8]) throws(TOMLParseError) {
        guard let escape = peek() else { throw failure("unterminated string") }
        switch escape {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = escape == UInt8(ascii: "u") ? 4 : 8
            var code: UInt32 = 0
            for offset in 1...count {
                guard index + offset < bytes.count, let digit = Self.hexValue(bytes[index + offset]) else {
                    throw failure("\\\(Character(Unicode.Scalar(escape))) needs \(count) hexadecimal digits")
                }
                code = code << 4 | UInt32(digit)
            }
            guard let scalar = Unicode.Scalar(code) else {
                throw failure("invalid unicode escape: U+\(String(code, radix: 16, uppercase: true)) is not a Unicode scalar value")
            }
            out.append(contentsOf: String(Character(scalar)).utf8)
            index += count
        default:
            throw failure("invalid escape \\\(describe(escape))")
        }
        advance()
    }

    /// How many of the byte at `index` follow each other from there.
    private func quoteRun() -> Int {
        var count = 0
        while index + count < bytes.count && bytes[index + count] == bytes[index] { count += 1 }
        return count
    }

    /// A newline of a multi-line string, kept as written (LF or CRLF).
    private mutating func newlineKept(into out: inout [UInt8]) throws(TOMLParseError) {
        if peek() == 0x0D { out.append(0x0D) }
        guard try newlineIfHere() else { throw failure("expected a newline") }
        out.append(0x0A)
    }

    /// Refuses the control characters strings cannot hold unescaped: all but tab.
    private func checkStringByte(_ byte: UInt8) throws(TOMLParseError) {
        guard byte >= 0x20 && byte != 0x7F || byte == 0x09 else {
            throw failure("control character \(Self.codePoint(byte)) in a string: write it as an escape")
        }
    }

    /// A newline right after a multi-line string's opening delimiter is not part of it.
    private mutating func skipFirstNewline() throws(TOMLParseError) {
        _ = try newlineIfHere()
    }

    // MARK: Lexing

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
    mutating func advance() { index += 1 }

    /// Steps over a newline (LF, or CRLF) if one is at `index`; a carriage return alone is an error.
    mutating func newlineIfHere() throws(TOMLParseError) -> Bool {
        switch peek() {
        case 0x0A?:
            index += 1
        case 0x0D?:
            guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else {
                throw failure("a carriage return must be followed by a line feed")
            }
            index += 2
        default:
            return false
        }
        line += 1
        lineStart = index
        return true
    }

    func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return text.withUTF8Buffer { $0.elementsEqual(bytes[index..<index + count]) }
    }

    mutating func expect(_ character: Unicode.Scalar) throws(TOMLParseError) {
        guard peek() == UInt8(ascii: character) else {
            guard let byte = peek() else { throw failure("expected \"\(character)\"") }
            throw failure("expected \"\(character)\", found \(describe(byte))")
        }
        advance()
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 { advance() }
    }

    /// A comment, up to the end of its line: it may hold any character but controls (tab aside).
    mutating func skipComment() throws(TOMLParseError) {
        guard peek() == UInt8(ascii: "#") else { return }
        advance()
        while let byte = peek(), byte != 0x0A {
            if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { return }
            guard byte >= 0x20 && byte != 0x7F || byte == 0x09 else {
                throw failure("control character \(Self.codePoint(byte)) in a comment")
            }
            advance()
        }
    }

    /// Blank lines and comment lines.
    mutating func skipBlankAndComments() throws(TOMLParseError) {
        while true {
            skipSpaces()
            try skipComment()
            guard try newlineIfHere() else { return }
        }
    }

    /// After a key/value pair or a header: only a comment until the end of the line.
    mutating func endOfLine() throws(TOMLParseError) {
        skipSpaces()
        try skipComment()
        guard let byte = peek() else { return }
        guard try newlineIfHere() else { throw failure("expected the end of the line, found \(describe(byte))") }
    }

    /// Refuses a document that is not UTF-8, pointing at the first bad byte.
    func checkEncoding() throws(TOMLParseError) {
        guard let bad = UTF8Check.firstInvalidOffset(in: bytes) else { return }
        var line = 1
        var lineStart = 0
        for offset in 0..<bad where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        throw TOMLParseError(
            line: line, column: bad - lineStart + 1, message: "not valid UTF-8 (byte 0x\(String(bytes[bad], radix: 16)))"
        )
    }

    // MARK: Errors

    func failure(_ message: String) -> TOMLParseError {
        TOMLParseError(line: line, column: index - lineStart + 1, message: message)
    }

    func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "\"\(Character(Unicode.Scalar(byte)))\"" : "byte 0x\(String(byte, radix: 16))"
    }

    /// `U+0007`.
    static func codePoint(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// A dotted key for messages, quoted; characters a terminal would act on are escaped.
    func quoted(_ path: [String]) -> String {
        var text = "\""
        for (number, part) in path.enumerated() {
            if number > 0 { text += "." }
            for scalar in part.unicodeScalars {
                switch scalar.value {
                case 0x22: text += "\\\""
                case 0x5C: text += "\\\\"
                case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    text += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }

    // MARK: Character classes

    static func isBareKey(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// The bytes booleans, numbers, dates and times are made of.
    static func isScalar(_ byte: UInt8) -> Bool {
        isBareKey(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
