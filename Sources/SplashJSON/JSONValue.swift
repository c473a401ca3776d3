/// A JSON value: what step options, facts and free-form protocol fields hold.
///
/// Numbers are `.number` (a `Double`), except whole numbers a `Double` cannot hold exactly (beyond
/// ±2^53, up to the 64-bit limits): those keep every digit as `.largeInteger` or
/// `.largeUnsignedInteger`, so a request `id` of 9007199254740993 is echoed as it was sent. Each
/// number has one form: build values with `init(_:)` (or an integer literal), which picks it.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    /// A whole number in `Int64`'s range that a `Double` cannot hold exactly (|n| > 2^53).
    case largeInteger(Int64)
    /// A whole number above `Int64.max` that a `Double` cannot hold exactly.
    case largeUnsignedInteger(UInt64)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The number `value`, exactly: `.number` when a `Double` holds it, else `.largeInteger`.
    public init(_ value: Int64) {
        if let exact = Double(exactly: value) {
            self = .number(exact)
        } else {
            self = .largeInteger(value)
        }
    }

    /// The number `value`, exactly: `.number` when a `Double` holds it, else `.largeInteger`
    /// (up to `Int64.max`) or `.largeUnsignedInteger`.
    public init(_ value: UInt64) {
        if let exact = Double(exactly: value) {
            self = .number(exact)
        } else if let signed = Int64(exactly: value) {
            self = .largeInteger(signed)
        } else {
            self = .largeUnsignedInteger(value)
        }
    }

    /// 2^53: from here on not every whole number is a `Double`.
    private static let exactDoubleLimit = 9_007_199_254_740_992.0

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            // A whole number past 2^53 may have lost digits on the way to a Double: read it again
            // as a 64-bit integer (which fails for a fraction or an out-of-range number).
            if value.magnitude >= Self.exactDoubleLimit, value.rounded() == value {
                if let whole = try? container.decode(Int64.self) {
                    self = JSONValue(whole)
                } else if let whole = try? container.decode(UInt64.self) {
                    self = JSONValue(whole)
                } else {
                    self = .number(value)
                }
            } else {
                self = .number(value)
            }
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let whole = Int64(exactly: value) {
                try container.encode(whole)
            } else if let whole = UInt64(exactly: value) {
                try container.encode(whole)
            } else {
                try container.encode(value)
            }
        case .largeInteger(let value): try container.encode(value)
        case .largeUnsignedInteger(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, if this is a number (a large integer as the nearest `Double`).
    public var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .largeInteger(let value): Double(value)
        case .largeUnsignedInteger(let value): Double(value)
        default: nil
        }
    }

    /// The number as an `Int64`, if this is a whole number in its range.
    public var int64Value: Int64? {
        switch self {
        case .number(let value): Int64(exactly: value)
        case .largeInteger(let value): value
        case .largeUnsignedInteger(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self.init(Int64(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// The small JSON object a step returns; dependants and the router read it. Never holds secrets.
public typealias Facts = [String: JSONValue]
