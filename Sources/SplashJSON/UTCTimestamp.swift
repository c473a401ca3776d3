/// ISO 8601 UTC timestamps with millisecond precision (`2026-11-22T12:43:35.488Z`), computed
/// from Unix time without the C library: glibc's `gmtime_r` reads and parses `/etc/localtime` at
/// its first call, a file read on the daemon's first log line for a time zone it never uses.
public enum UTCTimestamp {
    /// The timestamp of `seconds` since the Unix epoch plus `milliseconds` (0...999).
    public static func iso8601(seconds: Int64, milliseconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        var text = ""
        text.reserveCapacity(24)
        func append(_ value: Int, width: Int) {
            let digits = String(value)
            for _ in digits.count..<width { text.append("0") }
            text += digits
        }
        append(Int(year), width: 4)
        text.append("-")
        append(month, width: 2)
        text.append("-")
        append(day, width: 2)
        text.append("T")
        append(secondOfDay / 3600, width: 2)
        text.append(":")
        append(secondOfDay / 60 % 60, width: 2)
        text.append(":")
        append(secondOfDay % 60, width: 2)
        text.append(".")
        append(min(max(milliseconds, 0), 999), width: 3)
        text.append("Z")
        return text
    }

    /// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
