import Glibc

/// Timestamps in local time as `journalctl -o short-precise` writes them, with milliseconds:
/// `Mar 05 14:02:11.123`.
public enum LocalTimestamp {
    /// The month names of the C locale, which `journalctl` uses too.
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `realtimeUsec` (microseconds since the Unix epoch) in the local time zone (`TZ`, else
    /// `/etc/localtime`).
    public static func string(realtimeUsec: UInt64) -> String {
        var seconds = time_t(realtimeUsec / 1_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "?" }
        return string(
            month: Int(parts.tm_mon) + 1,
            day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour),
            minute: Int(parts.tm_min),
            second: Int(parts.tm_sec),
            millisecond: Int(realtimeUsec % 1_000_000 / 1000)
        )
    }

    /// `Mar 05 14:02:11.123` of the given parts (`month` 1...12).
    public static func string(month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) -> String {
        let name = months.indices.contains(month - 1) ? months[month - 1] : "???"
        return "\(name) \(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))"
    }

    /// `value` with leading zeros to `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
