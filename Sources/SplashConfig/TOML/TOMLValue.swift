/// The kinds of TOML values.
enum TOMLType: Sendable, Equatable {
    case table, array, string, int, double, bool, date, time, dateTime
}

/// A parsed TOML value. Dates and times keep their TOML text.
indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date(String)
    case time(String)
    case dateTime(String)
    case array([TOMLValue])
    case table(TOMLTable)

    var type: TOMLType {
        switch self {
        case .string: .string
        case .int: .int
        case .double: .double
        case .bool: .bool
        case .date: .date
        case .time: .time
        case .dateTime: .dateTime
        case .array: .array
        case .table: .table
        }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int? { if case .int(let value) = self { value } else { nil } }
    var double: Double? { if case .double(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var array: [TOMLValue]? { if case .array(let value) = self { value } else { nil } }
    var table: TOMLTable? { if case .table(let value) = self { value } else { nil } }

    /// The text of a date, time or date-time.
    var dateText: String? {
        switch self {
        case .date(let text), .time(let text), .dateTime(let text): text
        default: nil
        }
    }
}

/// A TOML table: its keys in the order they were written, and the lines they were written on.
///
/// Lines are where messages point: a key's line is that of the key (for a sub-table, its header,
/// or the dotted key or header that first named it); a table's own `line` is its header, its
/// `{`, or where it was first named. They are not part of `==`.
struct TOMLTable: Sendable, Equatable, Sequence {
    private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var lines: [String: Int] = [:]
    /// The 1-based line the table starts on; nil for a document's root or a table built by hand.
    private(set) var line: Int?

    init(line: Int? = nil) {
        self.line = line
    }

    /// Parses a TOML document.
    init(string text: String) throws(TOMLParseError) {
        var parser = TOMLParser(text)
        self = try parser.parse()
    }

    /// Parses a TOML document given as bytes: they must be UTF-8 (a byte-order mark may start them).
    init(bytes: [UInt8]) throws(TOMLParseError) {
        var parser = TOMLParser(bytes: bytes)
        self = try parser.parse()
    }

    subscript(key: String) -> TOMLValue? { values[key] }

    /// The 1-based line `key` was written on, if it is in the table and was parsed.
    func line(of key: String) -> Int? { lines[key] }

    mutating func set(_ key: String, _ value: TOMLValue, line: Int? = nil) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        lines[key] = line
    }

    static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    func makeIterator() -> some IteratorProtocol<(String, TOMLValue)> {
        keys.lazy.map { ($0, values[$0]!) }.makeIterator()
    }
}

/// Why a text is not TOML, and where.
public struct TOMLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column, in bytes, of the problem.
    public var column: Int
    /// What is wrong, without the location.
    public var message: String
    public var description: String { message }
}
