import Foundation
import SplashCore
import SplashJSON
import SplashJournalReader
import Testing

/// `splashctl logs --json` lines, without a journal.
@Suite struct LaunchLogJSONTests {
    private func object(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aStepRecordHasEveryMember() throws {
        let record = LaunchLogRecord(
            realtimeUsec: 1_772_715_731_151_042, launch: "6f1c", step: "greet", attempt: "2", durationMs: "11",
            messageID: LaunchLogEvent.stepFinished.messageID, priority: 6, message: "step greet succeeded in 11ms"
        )
        let line = record.jsonLine
        #expect(line.hasPrefix(#"{"time":"2026-03-05T13:02:11.151Z","realtime_usec":1772715731151042,"#))
        #expect(!line.contains("\n"))
        let json = try object(line)
        #expect(json["time"] as? String == "2026-03-05T13:02:11.151Z")
        #expect(json["realtime_usec"] as? Int == 1_772_715_731_151_042)
        #expect(json["launch"] as? String == "6f1c")
        #expect(json["step"] as? String == "greet")
        #expect(json["attempt"] as? Int == 2)
        #expect(json["phase"] is NSNull)
        #expect(json["duration_ms"] as? Int == 11)
        #expect(json["event"] as? String == "step-finished")
        #expect(json["message_id"] as? String == LaunchLogEvent.stepFinished.messageID)
        #expect(json["priority"] as? Int == 6)
        #expect(json["message"] as? String == "step greet succeeded in 11ms")
        #expect(json.count == 11)
    }

    @Test func missingFieldsAreNull() throws {
        let json = try object(LaunchLogRecord(realtimeUsec: 999, launch: "a", attempt: "many", message: "").jsonLine)
        #expect(json["time"] as? String == "1970-01-01T00:00:00.000Z")
        for key in ["step", "attempt", "phase", "duration_ms", "message_id", "priority"] {
            #expect(json[key] is NSNull, "\(key)")
        }
        #expect(json["event"] as? String == "-")
    }

    @Test func controlCharactersAreEscapedAndReadBackTheSame() throws {
        let message = "a\u{1B}[2J\nb\u{9B}c\u{202E}d"
        let record = LaunchLogRecord(realtimeUsec: 0, launch: "l\u{7}", step: "s\u{1B}", priority: 6, message: message)
        let line = record.jsonLine
        let controls = line.unicodeScalars.filter {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || LogEscaping.isEscaped($0) && $0 != "\\"
        }
        #expect(controls.isEmpty, "\(line.debugDescription)")
        let json = try object(line)
        #expect(json["message"] as? String == message)
        #expect(json["launch"] as? String == "l\u{7}")
        #expect(json["step"] as? String == "s\u{1B}")
    }
}
