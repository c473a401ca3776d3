import SplashCore
import SplashJSON

extension LaunchLogRecord {
    /// The record as one line of JSON (without a newline), for `splashctl logs --json`.
    ///
    /// ```
    /// {"time":"2026-03-05T13:02:11.151Z","realtime_usec":1772715731151042,"launch":"6f1c…",
    ///  "step":"greet","attempt":1,"phase":null,"duration_ms":11,"event":"step-finished",
    ///  "message_id":"2fada2569d0c4ec18c2ed58c92bdb5ca","priority":6,"message":"step greet …"}
    /// ```
    ///
    /// `time` is ISO 8601 UTC with milliseconds; `realtime_usec` the journal's microseconds.
    /// Missing fields are `null`; `attempt` and `duration_ms` are numbers (`null` when the
    /// journal holds something else). Strings have every control and invisible formatting
    /// character escaped (`\u001b`), so the line is safe on a terminal and reads back the same.
    public var jsonLine: String {
        var writer = JSONWriter(escapingAllControls: true)
        writer.object { w in
            w.key("time")
            w.string(
                UTCTimestamp.iso8601(
                    seconds: Int64(realtimeUsec / 1_000_000),
                    milliseconds: Int(realtimeUsec % 1_000_000 / 1000)
                )
            )
            w.key("realtime_usec"); w.unsigned(realtimeUsec)
            w.key("launch"); w.string(launch)
            w.key("step"); w.string(step)
            w.key("attempt"); Self.number(attempt, into: &w)
            w.key("phase"); w.string(phase)
            w.key("duration_ms"); Self.number(durationMs, into: &w)
            w.key("event"); w.string(event)
            w.key("message_id"); w.string(messageID)
            w.key("priority")
            if let priority { w.int(Int64(priority)) } else { w.null() }
            w.key("message"); w.string(message)
        }
        return writer.string
    }

    /// Writes `text` as a number, or `null` when it is missing or not an integer.
    private static func number(_ text: String?, into writer: inout JSONWriter) {
        if let value = text.flatMap({ Int64($0) }) { writer.int(value) } else { writer.null() }
    }
}
