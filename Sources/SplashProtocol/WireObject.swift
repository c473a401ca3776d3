public import SplashJSON

/// Why a line or value is not a message of the socket protocol.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

extension JSONValue {
    /// Parses one JSON text (a protocol line): the one place a line becomes a value.
    public static func parse(_ bytes: some Collection<UInt8>) throws(WireError) -> JSONValue {
        do {
            return try JSONReader.value(of: bytes)
        } catch {
            throw WireError("not valid JSON: \(error)")
        }
    }
}

/// Typed reading of one JSON object of the protocol: every wire type decodes through it.
public struct WireObject: Sendable {
    public let members: [String: JSONValue]
    /// What the object is, for messages ("state", "error").
    let what: String

    public init(_ value: JSONValue, what: String) throws(WireError) {
        guard let members = value.objectValue else { throw WireError("\(what) must be a JSON object") }
        self.members = members
        self.what = what
    }

    public subscript(key: String) -> JSONValue? { members[key] }

    func fail(_ key: String, _ expected: String) -> WireError {
        WireError("\(what): \"\(key)\" must be \(expected)")
    }

    /// A string member; nil when absent or null.
    public func optionalString(_ key: String) throws(WireError) -> String? {
        try optional(key, \.stringValue, expected: "a string")
    }

    public func string(_ key: String) throws(WireError) -> String {
        guard let text = try optionalString(key) else { throw fail(key, "a string") }
        return text
    }

    public func bool(_ key: String) throws(WireError) -> Bool {
        guard case .bool(let flag)? = members[key] else { throw fail(key, "true or false") }
        return flag
    }

    public func optionalBool(_ key: String) throws(WireError) -> Bool? {
        try optional(key, \.boolValue, expected: "true or false")
    }

    public func double(_ key: String) throws(WireError) -> Double {
        guard let number = members[key]?.numberValue, number.isFinite else { throw fail(key, "a number") }
        return number
    }

    /// A whole number member; nil when absent or null.
    public func optionalInt(_ key: String) throws(WireError) -> Int64? {
        try optional(key, \.int64Value, expected: "a whole number")
    }

    public func int(_ key: String) throws(WireError) -> Int64 {
        guard let whole = try optionalInt(key) else { throw fail(key, "a whole number") }
        return whole
    }

    /// An object member read as `T`; nil when absent or null.
    public func optional<T>(_ key: String, _ read: (JSONValue) throws(WireError) -> T) throws(WireError) -> T? {
        switch members[key] {
        case nil, .null?: return nil
        case let value?: return try read(value)
        }
    }

    /// A member `value` reads (nil when it is not one: `expected` says what it must be); nil when
    /// absent or null.
    private func optional<T>(_ key: String, _ value: (JSONValue) -> T?, expected: String) throws(WireError) -> T? {
        try optional(key) { json throws(WireError) in
            guard let read = value(json) else { throw fail(key, expected) }
            return read
        }
    }

    /// An array member, each element read as `T`.
    public func array<T>(_ key: String, _ read: (JSONValue) throws(WireError) -> T) throws(WireError) -> [T] {
        guard case .array(let elements)? = members[key] else { throw fail(key, "an array") }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(try read(element)) }
        return result
    }

    /// A string member that is one of `T`'s raw values.
    public func raw<T: RawRepresentable>(_ key: String, as type: T.Type) throws(WireError) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string(key)) else { throw fail(key, "one of the known values") }
        return value
    }

    /// A string member that is one of `T`'s raw values; nil when absent or null.
    public func optionalRaw<T: RawRepresentable>(_ key: String, as type: T.Type) throws(WireError) -> T? where T.RawValue == String {
        guard let text = try optionalString(key) else { return nil }
        guard let value = T(rawValue: text) else { throw fail(key, "one of the known values") }
        return value
    }
}
