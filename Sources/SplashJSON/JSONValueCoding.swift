/// Encodes a `Codable` model straight into a `JSONValue`, with no bytes in between: a launch
/// record goes onto the wire as the same model the history file keeps (`LaunchRecord.jsonValue`).
///
/// Numbers take `JSONValue`'s one form for each (`JSONValue(Int64)` and friends); `nil` optionals
/// that a model encodes with `encodeIfPresent` are left out, as `JSONEncoder` leaves them out.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Node()
        try value.encode(to: ValueEncoder(node: root, codingPath: []))
        return root.value
    }

    /// A value being built: a leaf, or an object or array whose members are still being encoded.
    final class Node {
        enum Content {
            case leaf(JSONValue)
            case object([String: Node])
            case array([Node])
        }

        var content = Content.leaf(.null)

        var value: JSONValue {
            switch content {
            case .leaf(let value): value
            case .object(let members): .object(members.mapValues(\.value))
            case .array(let elements): .array(elements.map(\.value))
            }
        }

        func member(_ key: String) -> Node {
            var members: [String: Node] = [:]
            if case .object(let existing) = content { members = existing }
            let node = Node()
            members[key] = node
            content = .object(members)
            return node
        }

        func appended() -> Node {
            var elements: [Node] = []
            if case .array(let existing) = content { elements = existing }
            let node = Node()
            elements.append(node)
            content = .array(elements)
            return node
        }

        func becomeObject() { if case .object = content { return }; content = .object([:]) }
        func becomeArray() { if case .array = content { return }; content = .array([]) }
        var count: Int { if case .array(let elements) = content { elements.count } else { 0 } }
    }

    struct ValueEncoder: Encoder {
        let node: Node
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            node.becomeObject()
            return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.becomeArray()
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }
    }

    /// A leaf's value, or nil when `value` is not a scalar (then it encodes itself).
    static func scalar(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as JSONValue: return value
        case let value as any BinaryFloatingPoint: return .number(Double(value))
        case let value as any BinaryInteger:
            if let signed = Int64(exactly: value) { return JSONValue(signed) }
            if let unsigned = UInt64(exactly: value) { return JSONValue(unsigned) }
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) is beyond 64 bits"))
        default: return nil
        }
    }

    static func put(_ value: some Encodable, into node: Node, codingPath: [any CodingKey]) throws {
        if let scalar = try scalar(value, codingPath: codingPath) {
            node.content = .leaf(scalar)
        } else {
            try value.encode(to: ValueEncoder(node: node, codingPath: codingPath))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        var codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .leaf(.null) }

        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            try JSONValueEncoder.put(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = node.member(key.stringValue)
            child.becomeObject()
            return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = node.member(key.stringValue)
            child.becomeArray()
            return Unkeyed(node: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.member("super"), codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey]
        var count: Int { node.count }

        mutating func encodeNil() throws { node.appended().content = .leaf(.null) }

        mutating func encode(_ value: some Encodable) throws {
            try JSONValueEncoder.put(value, into: node.appended(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = node.appended()
            child.becomeObject()
            return KeyedEncodingContainer(Keyed<NestedKey>(node: child, codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = node.appended()
            child.becomeArray()
            return Unkeyed(node: child, codingPath: codingPath)
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.appended(), codingPath: codingPath) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .leaf(.null) }
        mutating func encode(_ value: some Encodable) throws { try JSONValueEncoder.put(value, into: node, codingPath: codingPath) }
    }
}

/// Decodes a `Codable` model straight from a `JSONValue` (what `JSONValueEncoder` made, or what
/// arrived on the socket), with no bytes in between.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder.take(type, from: value, codingPath: [])
    }

    static func take<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey]) throws -> T {
        func mismatch() -> DecodingError {
            .typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "expected \(T.self), found \(value)"))
        }
        func integer<I: FixedWidthInteger>(_: I.Type) throws -> I {
            switch value {
            case .number(let number): if let exact = I(exactly: number) { return exact }
            case .largeInteger(let number): if let exact = I(exactly: number) { return exact }
            case .largeUnsignedInteger(let number): if let exact = I(exactly: number) { return exact }
            default: break
            }
            throw mismatch()
        }
        switch type {
        case is JSONValue.Type: return value as! T
        case is String.Type:
            guard case .string(let string) = value else { throw mismatch() }
            return string as! T
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch() }
            return flag as! T
        case let floating as any BinaryFloatingPoint.Type:
            guard let number = value.numberValue else { throw mismatch() }
            func convert<F: BinaryFloatingPoint>(_: F.Type) -> F { F(number) }
            return convert(floating) as! T
        case let integral as any FixedWidthInteger.Type:
            return try integer(integral) as! T
        default:
            return try T(from: ValueDecoder(value: value, codingPath: codingPath))
        }
    }

    struct ValueDecoder: Decoder {
        let value: JSONValue
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else {
                throw DecodingError.typeMismatch(
                    [String: JSONValue].self, .init(codingPath: codingPath, debugDescription: "expected an object, found \(value)"))
            }
            return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else {
                throw DecodingError.typeMismatch(
                    [JSONValue].self, .init(codingPath: codingPath, debugDescription: "expected an array, found \(value)"))
            }
            return Unkeyed(elements: elements, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        var codingPath: [any CodingKey]
        var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        func member(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONValueDecoder.take(type, from: member(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try ValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try ValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        var codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        mutating func next() throws -> JSONValue {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    JSONValue.self, .init(codingPath: codingPath, debugDescription: "no element \(currentIndex)"))
            }
            defer { currentIndex += 1 }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONValueDecoder.take(type, from: next(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try ValueDecoder(value: next(), codingPath: codingPath).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try ValueDecoder(value: next(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder { ValueDecoder(value: try next(), codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        let value: JSONValue
        var codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONValueDecoder.take(type, from: value, codingPath: codingPath) }
    }
}
