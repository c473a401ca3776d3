import SplashCore

/// Typed access to one TOML table of a file, throwing located `ConfigError`s.
///
/// Messages read `<prefix><what><suffix>`: for `[splash]` the suffix is ` in [splash]`, for a step
/// the prefix is `step "fetch": `, and keys of a nested table are shown dotted (`retry.backoff`).
package struct TableReader {
    let table: TOMLTable
    let file: String
    /// Where the table is written (its header, or the key that holds it); nil for the root.
    let line: Int?
    package var prefix = ""
    package var suffix = ""
    /// Put before key names in messages, `"retry."` for a step's retry table.
    package var keyPrefix = ""

    /// Parses a TOML document into a reader of its root table; syntax errors carry the parser's line.
    package static func parse(_ text: String, file: String) throws(ConfigError) -> TableReader {
        try parse(bytes: Array(text.utf8), file: file)
    }

    /// Parses a TOML document given as the bytes of its file (UTF-8, a byte-order mark allowed).
    package static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> TableReader {
        let table: TOMLTable
        do {
            table = try TOMLTable(bytes: bytes)
        } catch {
            throw ConfigError(
                file: file, line: error.line,
                message: "TOML syntax error: \(error.description) (column \(error.column))"
            )
        }
        return TableReader(table: table, file: file, line: nil)
    }

    /// The reader of the table at `key`, or `nil` when the key is absent.
    package func table(_ key: String, suffix: String? = nil, showKeyAsPrefix: Bool = false) throws(ConfigError) -> TableReader? {
        guard let value = table[key] else { return nil }
        guard let nested = value.table else { throw wrongType(key, value, expected: .table) }
        var reader = TableReader(table: nested, file: file, line: lineOf(key))
        reader.prefix = prefix
        reader.suffix = suffix ?? self.suffix
        reader.keyPrefix = showKeyAsPrefix ? keyPrefix + key + "." : keyPrefix
        return reader
    }

    /// Rejects keys not in `allowed`, reporting the first one in file order.
    package func checkKeys(_ allowed: Set<String>) throws(ConfigError) {
        let unknown = table.keys.filter { !allowed.contains($0) }
        guard !unknown.isEmpty else { return }
        let first = unknown.min { (lineOf($0) ?? .max, $0) < (lineOf($1) ?? .max, $1) }!
        throw error(at: first, "unknown key \"\(keyPrefix)\(first)\"\(suffix)")
    }

    /// Whether the table has `key`, of any type.
    package func has(_ key: String) -> Bool { table[key] != nil }

    package func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else { throw wrongType(key, value, expected: .string) }
        return string
    }

    package func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let bool = value.bool else { throw wrongType(key, value, expected: .bool) }
        return bool
    }

    package func int(_ key: String) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let int = value.int else { throw wrongType(key, value, expected: .int) }
        return int
    }

    /// A duration written as a string such as `"250ms"`.
    package func duration(_ key: String) throws(ConfigError) -> Duration? {
        guard let text = try string(key) else { return nil }
        do {
            return try DurationFormat.parse(text)
        } catch {
            let head = "bad duration \"\(text)\""
            let description = error.description
            let detail = description.hasPrefix(head) ? String(description.dropFirst(head.count)) : ": \(description)"
            throw self.error(at: key, "\(head) for \(keyPrefix)\(key)\(suffix)\(detail)")
        }
    }

    /// An array whose elements are all strings.
    package func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else { throw wrongType(key, value, expected: .array, of: .string) }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let string = element.string else {
                throw error(
                    at: key,
                    "wrong type for \(keyPrefix)\(key)[\(index)]\(suffix): expected a string, found \(element.type.withArticle)"
                )
            }
            strings.append(string)
        }
        return strings
    }

    /// The line of `key` in this table, or of the table itself when the key is not written.
    package func lineOf(_ key: String?) -> Int? {
        key.flatMap(table.line(of:)) ?? line
    }

    /// A located error about `key` (or the table itself), with the reader's prefix.
    package func error(at key: String?, _ message: String) -> ConfigError {
        ConfigError(file: file, line: lineOf(key), message: prefix + message)
    }

    func wrongType(
        _ key: String, _ value: TOMLValue, expected: TOMLType, of element: TOMLType? = nil
    ) -> ConfigError {
        var expectation = expected.withArticle
        if let element { expectation += " of \(element.name)s" }
        return error(
            at: key,
            "wrong type for \(keyPrefix)\(key)\(suffix): expected \(expectation), found \(value.type.withArticle)"
        )
    }
}

extension TOMLType {
    /// The type's name for messages: "string", "integer", "boolean".
    var name: String {
        switch self {
        case .table: "table"
        case .array: "array"
        case .string: "string"
        case .int: "integer"
        case .double: "floating-point number"
        case .bool: "boolean"
        case .date: "date"
        case .time: "time"
        case .dateTime: "date-time"
        }
    }

    /// The type's name with an indefinite article: "a string", "an integer".
    var withArticle: String {
        (name.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + name
    }
}
