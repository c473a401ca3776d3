import SplashCore
import SplashJSON

/// The `splashctl logs` table: a header and one row per record, aligned.
///
/// ```
/// TIME                 STEP   ATTEMPT  EVENT            MESSAGE
/// Mar 05 14:02:11.123  -      -        launch-started   launch started
/// Mar 05 14:02:11.140  greet  1        info             chatty plugin says hello on stderr
/// Mar 05 14:02:11.151  greet  1        step-finished    step greet succeeded in 11ms
/// ```
///
/// Nothing a record holds reaches the terminal as a control character: every field is escaped
/// (``displayedField(_:)``, ``displayedMessage(_:)``). The step column is as wide as the widest
/// step of the records the table was made with; a later, wider row (`--follow`) just pushes its
/// message to the right.
public struct LaunchLogTable: Sendable {
    /// The width of the step column.
    public var stepWidth: Int

    /// The width of `Mar 05 14:02:11.123`.
    static let timeWidth = 19
    /// The width of the widest event name, `launch-finished`.
    static let eventWidth = 15
    static let attemptWidth = "ATTEMPT".count

    /// A table whose step column fits the steps of `records`.
    public init(records: [LaunchLogRecord] = []) {
        stepWidth = records.reduce("STEP".count) { max($0, Self.displayedField($1.step).count) }
    }

    /// The header line, without a newline.
    public var header: String {
        line(time: "TIME", step: "STEP", attempt: "ATTEMPT", event: "EVENT", message: "MESSAGE")
    }

    /// The row of `record`, without a newline; `time` is its timestamp as shown (see
    /// ``LocalTimestamp``).
    public func row(_ record: LaunchLogRecord, time: String) -> String {
        line(
            time: time,
            step: Self.displayedField(record.step),
            attempt: Self.displayedField(record.attempt),
            event: record.event,
            message: Self.displayedMessage(record.message)
        )
    }

    private func line(time: String, step: String, attempt: String, event: String, message: String) -> String {
        [
            Self.padded(time, Self.timeWidth), Self.padded(step, stepWidth),
            Self.padded(attempt, Self.attemptWidth), Self.padded(event, Self.eventWidth), message,
        ].joined(separator: "  ")
    }

    /// A field the journal holds exactly as splashd got it (`SPLASHD_STEP`, …): escaped with
    /// `LogEscaping`; `-` when missing or empty.
    public static func displayedField(_ value: String?) -> String {
        guard let value, !value.isEmpty else { return "-" }
        return LogEscaping.escaped(value)
    }

    /// `MESSAGE`: splashd writes it already escaped (`\n`, `\x1b`, `\\`), so its backslashes are
    /// kept as they are; any control or invisible formatting character left (a record splashd
    /// did not write) is escaped as `LogEscaping` does.
    public static func displayedMessage(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: { LogEscaping.isEscaped($0) && $0 != "\\" }) else {
            return message
        }
        var result = ""
        result.reserveCapacity(message.utf8.count + 8)
        for scalar in message.unicodeScalars {
            if scalar != "\\" && LogEscaping.isEscaped(scalar) {
                result += LogEscaping.escaped(String(scalar))
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` padded with spaces to `width` characters (never cut).
    static func padded(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }
}
