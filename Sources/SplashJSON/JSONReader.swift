/// Why bytes are not one JSON text: what was wrong and at which byte.
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong ("a string's end missing", "nesting deeper than 512").
    public var reason: String
    /// The offset of the byte where reading stopped.
    public var offset: Int

    public var description: String { "\(reason) at byte \(offset)" }
}

/// Reads one JSON text (RFC 8259) into a `JSONValue`: the one reader of every protocol line,
/// plugin line and state file.
///
/// To the letter of the RFC: UTF-8 only (no byte-order mark), no comments, no trailing commas, no
/// `NaN`, no leading zeros, no control character unescaped in a string, no unpaired surrogate in
/// a `\u` escape; whitespace is space, tab, line feed and carriage return. What it adds:
/// - nesting deeper than `maximumDepth` is refused (a line of a million `[` cannot take the
///   stack);
/// - a number beyond `Double`'s range is refused; a whole number written without a fraction or
///   exponent that a `Double` cannot hold exactly keeps every digit (`.largeInteger`,
///   `.largeUnsignedInteger`, see `JSONValue`);
/// - a name written twice in an object: the first one counts (as Foundation's `JSONDecoder`,
///   which read these lines before, had it).
///
/// It links no Foundation: the renderers read protocol lines through it.
public enum JSONReader {
    /// How deep arrays and objects may nest.
    public static let maximumDepth = 512

    /// The value of the JSON text `bytes` (whitespace around it allowed, nothing else).
    public static func value(of bytes: some Collection<UInt8>) throws(JSONReadError) -> JSONValue {
        let result: Result<JSONValue, JSONReadError>? = bytes.withContiguousStorageIfAvailable { buffer in
            read(buffer)
        }
        switch result ?? read(Array(bytes)) {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    private static func read(_ bytes: [UInt8]) -> Result<JSONValue, JSONReadError> {
        bytes.withUnsafeBufferPointer { read($0) }
    }

    private static func read(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONReadError> {
        var cursor = Cursor(bytes: buffer)
        do throws(JSONReadError) {
            cursor.skipWhitespace()
            let value = try cursor.value(depth: 0)
            cursor.skipWhitespace()
            guard cursor.offset == buffer.count else { throw cursor.failure("more after the value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func failure(_ reason: String) -> JSONReadError { JSONReadError(reason: reason, offset: offset) }

    var atEnd: Bool { offset >= bytes.count }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONReadError) -> JSONValue {
        guard !atEnd else { throw failure("a value missing") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("not a JSON value")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count else { throw failure("not a JSON value") }
        for index in 0..<count where bytes[offset + index] != word.utf8Start[index] {
            throw failure("not a JSON value")
        }
        offset += count
    }

    /// Past the opening of an array or object (at most `maximumDepth` deep): whether `close`
    /// follows at once (`[]`, `{}`), then taken too.
    mutating func opened(closingWith close: Unicode.Scalar, depth: Int) throws(JSONReadError) -> Bool {
        guard depth <= JSONReader.maximumDepth else { throw failure("nesting deeper than \(JSONReader.maximumDepth)") }
        offset += 1
        skipWhitespace()
        guard !atEnd, bytes[offset] == UInt8(ascii: close) else { return false }
        offset += 1
        return true
    }

    mutating func array(depth: Int) throws(JSONReadError) -> JSONValue {
        var elements: [JSONValue] = []
        if try opened(closingWith: "]", depth: depth) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            if try closed(by: "]", in: "an array") { return .array(elements) }
        }
    }

    /// After an element or member: a comma (false: another follows) or `close` (true: the end).
    mutating func closed(by close: Unicode.Scalar, in what: String) throws(JSONReadError) -> Bool {
        skipWhitespace()
        guard !atEnd else { throw failure("\(what)'s end missing") }
        switch bytes[offset] {
        case UInt8(ascii: ","): offset += 1; return false
        case UInt8(ascii: close): offset += 1; return true
        default: throw failure("',' or '\(close)' expected in \(what)")
        }
    }

    mutating func object(depth: Int) throws(JSONReadError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if try opened(closingWith: "}", depth: depth) { return .object(members) }
        while true {
            skipWhitespace()
            guard !atEnd, bytes[offset] == UInt8(ascii: "\"") else { throw failure("a member's name expected") }
            let name = try string()
            skipWhitespace()
            guard !atEnd, bytes[offset] == UInt8(ascii: ":") else { throw failure("':' expected after a member's name") }
            offset += 1
            skipWhitespace()
            let member = try value(depth: depth)
            // A name written twice: the first counts, as Foundation's `JSONDecoder` had it.
            if members[name] == nil { members[name] = member }
            if try closed(by: "}", in: "an object") { return .object(members) }
        }
    }

    /// A string from its opening quote; the text between the quotes must be UTF-8.
    mutating func string() throws(JSONReadError) -> String {
        offset += 1  // "
        let start = offset
        // The common case: no escape, the bytes themselves.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                return try text(UnsafeBufferPointer(rebasing: bytes[start..<offset]), at: start, then: offset + 1)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character unescaped in a string") }
            offset += 1
        }
        var decoded = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                let end = offset + 1
                return try decoded.withUnsafeBufferPointer { buffer throws(JSONReadError) in try text(buffer, at: start, then: end) }
            case UInt8(ascii: "\\"):
                offset += 1
                guard !atEnd else { throw failure("a string's end missing") }
                let escaped = bytes[offset]
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"): decoded.append(contentsOf: try unicodeEscape())
                default:
                    offset -= 1
                    throw failure("an unknown escape in a string")
                }
            default:
                if byte < 0x20 { throw failure("a control character unescaped in a string") }
                decoded.append(byte)
                offset += 1
            }
        }
        throw failure("a string's end missing")
    }

    /// The scalar of `XXXX` after `\u` (two escapes for a surrogate pair).
    mutating func unicodeEscape() throws(JSONReadError) -> Unicode.Scalar.UTF8View {
        let first = try hexQuad()
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                throw failure("a high surrogate without its low one")
            }
            offset += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else { throw failure("a high surrogate without its low one") }
            let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(scalar)!.utf8
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("a low surrogate on its own") }
        return scalar.utf8
    }

    mutating func hexQuad() throws(JSONReadError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw failure("four hex digits expected after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("four hex digits expected after \\u")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// The string of UTF-8 `bytes` (from byte `start`), the cursor then at `end`.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, then end: Int) throws(JSONReadError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            offset = start
            throw failure("a string that is not UTF-8")
        }
        offset = end
        return text
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func number() throws(JSONReadError) -> JSONValue {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard !atEnd, isDigit(bytes[offset]) else { throw failure("a digit expected in a number") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if !atEnd, isDigit(bytes[offset]) { throw failure("a number with a leading zero") }
        } else {
            while !atEnd, isDigit(bytes[offset]) { offset += 1 }
        }
        var whole = true
        if !atEnd, bytes[offset] == UInt8(ascii: ".") {
            whole = false
            offset += 1
            guard !atEnd, isDigit(bytes[offset]) else { throw failure("a digit expected after a decimal point") }
            while !atEnd, isDigit(bytes[offset]) { offset += 1 }
        }
        if !atEnd, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            whole = false
            offset += 1
            if !atEnd, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard !atEnd, isDigit(bytes[offset]) else { throw failure("a digit expected in an exponent") }
            while !atEnd, isDigit(bytes[offset]) { offset += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            offset = start
            throw failure("a number beyond a Double's range")
        }
        // A whole number past 2^53 keeps every digit when a 64-bit integer holds it.
        if whole, double.magnitude >= 9_007_199_254_740_992 {
            if let signed = Int64(text) { return JSONValue(signed) }
            if let unsigned = UInt64(text) { return JSONValue(unsigned) }
        }
        return .number(double)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
