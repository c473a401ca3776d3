import SplashCore
import TOMLKit

/// Conversion of TOML values to `JSONValue`, for step options handed to plugins as-is.
enum TOMLJSON {
    /// Converts any TOML value. Integers become numbers; dates and times become their TOML text
    /// (`"2024-05-01"`, `"07:30:00"`, `"2024-05-01T07:30:00Z"`).
    static func convert(_ value: any TOMLValueConvertible) -> JSONValue {
        switch value.type {
        case .string: .string(value.string ?? "")
        case .int: .number(Double(value.int ?? 0))
        case .double: .number(value.double ?? 0)
        case .bool: .bool(value.bool ?? false)
        case .array: .array((value.array.map(Array.init) ?? []).map(convert))
        case .table: .object(value.table.map(convert) ?? [:])
        case .date: .string(value.date?.debugDescription ?? "")
        case .time: .string(value.time?.debugDescription ?? "")
        case .dateTime: .string(value.dateTime?.debugDescription ?? "")
        }
    }

    /// Converts every member of a table.
    static func convert(_ table: TOMLTable) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        for (key, value) in table { object[key] = convert(value) }
        return object
    }
}
