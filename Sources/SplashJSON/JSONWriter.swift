/// A small, fast JSON writer that keeps members in the order they are written.
///
/// The wire protocol writes `type` first and the state's fields in design §5's order, which
/// `JSONEncoder` does not promise; writing by hand is also several times cheaper, which matters
/// when one state goes to a thousand subscribers.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]
    /// Whether strings also get DEL, C1 controls, separators and bidirectional formatting
    /// escaped (as `\u007f`…): what `LogEscaping` escapes, for log lines. The value read back
    /// is the same either way.
    private let escapesAllControls: Bool

    /// A writer; `escapingAllControls` for log lines (see `LogEscaping`): no character that
    /// could mislead a terminal is written as it is.
    public init(capacity: Int = 256, escapingAllControls: Bool = false) {
        bytes.reserveCapacity(capacity)
        escapesAllControls = escapingAllControls
    }

    /// The output as a string.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Writes an object; `body` writes its members with `key(_:)` and a value.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        container("{", "}", body)
    }

    /// Writes an array; `body` writes its elements.
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        container("[", "]", body)
    }

    private mutating func container(_ open: Unicode.Scalar, _ close: Unicode.Scalar, _ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: open))
        needsComma.append(false)
        body(&self)
        needsComma.removeLast()
        bytes.append(UInt8(ascii: close))
    }

    /// Writes a member name; the next value written is its value.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    public mutating func string(_ value: String?) {
        separate()
        if let value { writeString(value) } else { writeNull() }
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func int(_ value: Int64) {
        separate()
        writeInt(value)
    }

    /// Writes `value`; a whole number in the 64-bit range as its digits (no `.0`, no exponent),
    /// a non-finite one as `null`.
    public mutating func number(_ value: Double) {
        separate()
        if !value.isFinite {
            writeNull()
        } else if let whole = Int64(exactly: value) {
            writeInt(whole)
        } else if let whole = UInt64(exactly: value) {
            writeDigits(whole)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// Writes `value`'s digits.
    public mutating func unsigned(_ value: UInt64) {
        separate()
        writeDigits(value)
    }

    public mutating func null() {
        separate()
        writeNull()
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .largeInteger(let whole): int(whole)
        case .largeUnsignedInteger(let whole): unsigned(whole)
        case .string(let text): string(text)
        case .array(let elements): array { writer in for element in elements { writer.value(element) } }
        case .object(let members):
            object { writer in
                for name in members.keys.sorted() {
                    writer.key(name)
                    writer.value(members[name]!)
                }
            }
        }
    }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    /// Decimal digits without making a `String` first: a state has several numbers per step.
    private mutating func writeInt(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        writeDigits(value.magnitude)
    }

    private mutating func writeDigits(_ value: UInt64) {
        var magnitude = value
        let start = bytes.count
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0"))
            magnitude /= 10
        } while magnitude > 0
        bytes[start..<bytes.count].reverse()
    }

    private mutating func writeNull() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    /// Copies runs of bytes that need no escaping in one go: state lines are mostly such text.
    private mutating func writeString(_ text: String) {
        if escapesAllControls, LogEscaping.needsEscaping(text) {
            writeStringEscapingAllControls(text)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
                if runStart < index {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                writeEscaped(byte)
                runStart = index + 1
            }
            if runStart < utf8.count {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The slow path of `writeString` for log lines: scalar by scalar.
    private mutating func writeStringEscapingAllControls(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar == "\"" || scalar == "\\" {
                writeEscaped(UInt8(scalar.value))
            } else if scalar.value == 0x7F || LogEscaping.isInvisibleFormatting(scalar) {
                bytes.append(contentsOf: #"\u"#.utf8)
                bytes.append(contentsOf: LogEscaping.hex(scalar.value, digits: 4).utf8)
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
