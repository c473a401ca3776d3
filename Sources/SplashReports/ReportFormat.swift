import SplashCore

/// Text helpers shared by the history reports: durations, instants, wall-clock dates, escaping.
enum ReportFormat {
    /// A duration the way `systemd-analyze` prints it: `523ms`, `1.204s`, `2min 3.100s`.
    static func duration(ms: Int64) -> String {
        let sign = ms < 0 ? "-" : ""
        let ms = ms.magnitude
        if ms < 1000 { return "\(sign)\(ms)ms" }
        let minutes = ms / 60_000
        let rest = ms % 60_000
        let seconds = "\(rest / 1000).\(pad(rest % 1000, to: 3))s"
        return minutes > 0 ? "\(sign)\(minutes)min \(seconds)" : "\(sign)\(seconds)"
    }

    /// Seconds with three decimals, for instants on a time line: `0.000s`, `1.204s`.
    static func seconds(ms: Int64) -> String {
        let sign = ms < 0 ? "-" : ""
        let ms = ms.magnitude
        return "\(sign)\(ms / 1000).\(pad(ms % 1000, to: 3))s"
    }

    /// UTC ISO 8601 with seconds: `2024-05-01T09:30:00Z`.
    static func iso8601(unixMs: Int64) -> String {
        let seconds = unixMs >= 0 ? unixMs / 1000 : (unixMs - 999) / 1000
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(pad(year, to: 4))-\(pad(month, to: 2))-\(pad(day, to: 2))T"
            + "\(pad(secondOfDay / 3600, to: 2)):\(pad(secondOfDay % 3600 / 60, to: 2)):\(pad(secondOfDay % 60, to: 2))Z"
    }

    /// Left-pads a non-negative number with zeros.
    static func pad(_ value: some BinaryInteger, to width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Right-aligns `text` in `width` columns.
    static func leftPad(_ text: String, to width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// The first 8 characters of a launch id.
    static func shortID(_ launch: String) -> String {
        launch.count > 8 ? String(launch.prefix(8)) : launch
    }

    /// Escapes text for XML content and attribute values; drops characters XML 1.0 cannot hold.
    static func xml(_ text: String) -> String { Markup.escape(text) }

    /// Escapes text for a double-quoted Graphviz DOT string.
    static func dot(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": break
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
