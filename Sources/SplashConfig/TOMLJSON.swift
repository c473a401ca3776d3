import SplashCore
import SplashJSON

/// Conversion of TOML values to `JSONValue`, for step options handed to plugins as-is.
enum TOMLJSON {
    /// Converts any TOML value. Integers become numbers; dates and times become their TOML text
    /// (`"2024-05-01"`, `"07:30:00"`, `"2024-05-01T07:30:00Z"`).
    static func convert(_ value: TOMLValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .int(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .array(let elements): .array(elements.map(convert))
        case .table(let table): .object(convert(table))
        case .date(let text), .time(let text), .dateTime(let text): .string(text)
        }
    }

    /// Converts every member of a table.
    static func convert(_ table: TOMLTable) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in table { object[key] = convert(value) }
        return object
    }
}
