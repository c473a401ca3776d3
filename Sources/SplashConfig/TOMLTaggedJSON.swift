import SplashCore
import SplashJSON

/// A TOML document as toml-test's tagged JSON (https://github.com/toml-lang/toml-test), what
/// `toml-test-decoder` prints: the decoder interface of the conformance suite.
///
/// Tables are JSON objects (keys in the order written) and arrays are JSON arrays; every other
/// value is an object `{"type": TYPE, "value": TEXT}` with TYPE one of `string`, `integer`,
/// `float`, `bool`, `datetime`, `datetime-local`, `date-local`, `time-local`. Integers are in
/// decimal; floats as Swift writes them (`1e+23`, `-0.0`), or `inf`, `-inf`, `nan`; dates and
/// times as written, with the date-time separator written `T` and a UTC `z` written `Z`.
public enum TOMLTaggedJSON {
    /// Parses `bytes` as a TOML 1.0 document and writes it as tagged JSON.
    public static func decode(_ bytes: [UInt8]) throws(TOMLParseError) -> String {
        var parser = TOMLParser(bytes: bytes)
        return encode(try parser.parse())
    }

    /// `table` as tagged JSON.
    static func encode(_ table: TOMLTable) -> String {
        var writer = JSONWriter(capacity: 1024)
        write(table, to: &writer)
        return writer.string
    }

    /// The tagged form of a value that is not a table or an array: its type and text.
    static func tag(_ value: TOMLValue) -> (type: String, value: String)? {
        switch value {
        case .string(let text): ("string", text)
        case .int(let number): ("integer", String(number))
        case .double(let number): ("float", floatText(number))
        case .bool(let flag): ("bool", flag ? "true" : "false")
        case .date(let text): ("date-local", text)
        case .time(let text): ("time-local", text)
        case .dateTime(let text): (hasOffset(text) ? "datetime" : "datetime-local", normalized(text))
        case .array, .table: nil
        }
    }

    private static func write(_ table: TOMLTable, to writer: inout JSONWriter) {
        writer.object { writer in
            for (key, value) in table {
                writer.key(key)
                write(value, to: &writer)
            }
        }
    }

    /// Recursion as deep as the value: at most `TOMLParser.maximumDepth`.
    private static func write(_ value: TOMLValue, to writer: inout JSONWriter) {
        switch value {
        case .table(let table):
            write(table, to: &writer)
        case .array(let elements):
            writer.array { writer in
                for element in elements { write(element, to: &writer) }
            }
        default:
            guard let (type, text) = tag(value) else { return }
            writer.object { writer in
                writer.key("type")
                writer.string(type)
                writer.key("value")
                writer.string(text)
            }
        }
    }

    static func floatText(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        return number.description
    }

    /// Whether a (valid) date-time has an offset: `Z`, `z`, `+HH:MM` or `-HH:MM` after the seconds.
    static func hasOffset(_ text: String) -> Bool {
        text.utf8.dropFirst(19).contains { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "z") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
    }

    /// RFC 3339's spelling: `T` between date and time, `Z` for UTC.
    static func normalized(_ text: String) -> String {
        var bytes = Array(text.utf8)
        if bytes.count > 10 { bytes[10] = UInt8(ascii: "T") }
        if bytes.last == UInt8(ascii: "z") { bytes[bytes.count - 1] = UInt8(ascii: "Z") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
