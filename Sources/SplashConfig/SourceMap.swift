/// Where table headers and keys are in a TOML text, to give messages a line number.
///
/// The TOML reader does not keep source positions of parsed values, so this scans the text itself. It
/// understands enough TOML to stay on track: table and array-of-tables headers, bare, quoted and
/// dotted keys, strings (including multi-line ones), comments, and values that span lines. It is
/// only used on text that already parsed, and a miss just means a message without a line.
///
/// Entries inside an array of tables carry the element index (0-based), so the third `[[step]]`
/// block and the `[step.options]` table under it can be told apart from the others.
struct SourceMap {
    /// A header or key: its full key path (table path plus key) and line.
    struct Entry: Equatable {
        var path: [String]
        /// Index of the `[[step]]`-style element it belongs to, if any.
        var element: Int?
        var line: Int
    }

    private(set) var entries: [Entry] = []
    /// The array-of-tables name whose elements are indexed (`step` for configs).
    let arrayName: String

    init(_ text: String, arrayName: String = "step") {
        self.arrayName = arrayName
        var scanner = Scanner()
        var table: [String] = []
        var element: Int?
        var elementCount = 0
        for (index, line) in Self.lines(text).enumerated() {
            let lineNumber = index + 1
            var rest = line[...]
            if scanner.atLogicalLineStart {
                rest = rest.drop { $0 == .space || $0 == .tab }
                if rest.first == .openBracket {
                    if let header = Self.header(rest) {
                        table = header.path
                        if header.isArray, header.path == [arrayName] {
                            element = elementCount
                            elementCount += 1
                        }
                        entries.append(Entry(path: table, element: inArray(table, element), line: lineNumber))
                    }
                    continue
                }
                if let (keys, value) = Self.keyValue(rest) {
                    let path = table + keys
                    entries.append(Entry(path: path, element: inArray(table, element), line: lineNumber))
                    rest = value
                } else {
                    continue
                }
            }
            scanner.scan(rest)
        }
    }

    /// The line of `path` (a table or key path) in element `element`, or of the nearest enclosing
    /// table or key that is written in the text (an inline table's key, a sub-table header).
    ///
    /// If nothing matches inside the element, looks outside any element, which finds
    /// `step = [ ... ]` written as an inline array.
    func line(of path: [String], element: Int? = nil) -> Int? {
        if let found = bestMatch(path, element: element) { return found }
        if element != nil { return bestMatch(path, element: nil) }
        return nil
    }

    private func bestMatch(_ path: [String], element: Int?) -> Int? {
        var best: Entry?
        for entry in entries where entry.element == element && path.starts(with: entry.path) {
            if best == nil || entry.path.count > best!.path.count { best = entry }
        }
        return best?.line
    }

    private func inArray(_ table: [String], _ element: Int?) -> Int? {
        table.first == arrayName ? element : nil
    }

    // MARK: - Lexing

    /// Splits on `\n` bytes (a `\r` before it is dropped by the key lexer as whitespace).
    private static func lines(_ text: String) -> [[UInt8]] {
        Array(text.utf8).split(separator: .newline, omittingEmptySubsequences: false).map(Array.init)
    }

    /// Parses `[a.b]` or `[[a.b]]` with nothing but a comment after it.
    private static func header(_ line: ArraySlice<UInt8>) -> (path: [String], isArray: Bool)? {
        var rest = line.dropFirst()
        let isArray = rest.first == .openBracket
        if isArray { rest = rest.dropFirst() }
        guard let (keys, after) = keyPath(rest) else { return nil }
        rest = after
        for _ in 0..<(isArray ? 2 : 1) {
            guard rest.first == .closeBracket else { return nil }
            rest = rest.dropFirst()
        }
        rest = rest.drop { $0 == .space || $0 == .tab || $0 == .carriageReturn }
        guard rest.isEmpty || rest.first == .hash else { return nil }
        return (keys, isArray)
    }

    /// Parses `key = ` and returns the key path and the value text after `=`.
    private static func keyValue(_ line: ArraySlice<UInt8>) -> ([String], ArraySlice<UInt8>)? {
        guard let (keys, rest) = keyPath(line), rest.first == .equals else { return nil }
        return (keys, rest.dropFirst())
    }

    /// Parses a dotted key (`a`, `"a b".c`, `'x'`) and the whitespace after it.
    private static func keyPath(_ text: ArraySlice<UInt8>) -> ([String], ArraySlice<UInt8>)? {
        var rest = text
        var keys: [String] = []
        while true {
            rest = rest.drop { $0 == .space || $0 == .tab }
            guard let first = rest.first else { return nil }
            if first == .quote || first == .apostrophe {
                var key: [UInt8] = []
                var index = rest.index(after: rest.startIndex)
                var closed = false
                while index < rest.endIndex {
                    let byte = rest[index]
                    if byte == first { closed = true; break }
                    if byte == .backslash, first == .quote, rest.index(after: index) < rest.endIndex {
                        index = rest.index(after: index)
                    }
                    key.append(rest[index])
                    index = rest.index(after: index)
                }
                guard closed else { return nil }
                keys.append(String(decoding: key, as: UTF8.self))
                rest = rest[rest.index(after: index)...]
            } else {
                let bare = rest.prefix { $0.isBareKeyByte }
                guard !bare.isEmpty else { return nil }
                keys.append(String(decoding: bare, as: UTF8.self))
                rest = rest.dropFirst(bare.count)
            }
            rest = rest.drop { $0 == .space || $0 == .tab }
            guard rest.first == .dot else { return (keys, rest) }
            rest = rest.dropFirst()
        }
    }

    /// Tracks strings and brackets across lines, so continuation lines of a value are not
    /// mistaken for keys or headers.
    private struct Scanner {
        var depth = 0
        /// The delimiter byte of an open multi-line string.
        var multiline: UInt8?

        var atLogicalLineStart: Bool { depth == 0 && multiline == nil }

        mutating func scan(_ text: ArraySlice<UInt8>) {
            var index = text.startIndex
            func startsTriple(_ byte: UInt8, at i: Int) -> Bool {
                i + 2 < text.endIndex && text[i] == byte && text[i + 1] == byte && text[i + 2] == byte
            }
            while index < text.endIndex {
                let byte = text[index]
                if let delimiter = multiline {
                    if delimiter == .quote && byte == .backslash {
                        index += 2
                    } else if startsTriple(delimiter, at: index) {
                        multiline = nil
                        index += 3
                    } else {
                        index += 1
                    }
                    continue
                }
                switch byte {
                case .hash:
                    return
                case .quote, .apostrophe:
                    if startsTriple(byte, at: index) {
                        multiline = byte
                        index += 3
                        continue
                    }
                    index += 1
                    while index < text.endIndex, text[index] != byte {
                        index += (byte == .quote && text[index] == .backslash) ? 2 : 1
                    }
                    index += 1
                case .openBracket, .openBrace:
                    depth += 1
                    index += 1
                case .closeBracket, .closeBrace:
                    depth = max(0, depth - 1)
                    index += 1
                default:
                    index += 1
                }
            }
        }
    }
}

extension UInt8 {
    fileprivate static let newline = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let apostrophe = UInt8(ascii: "'")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let hash = UInt8(ascii: "#")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let dot = UInt8(ascii: ".")

    fileprivate var isBareKeyByte: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "_")
            || self == UInt8(ascii: "-")
    }
}
