import SplashCore
import SplashJournalReader
import Testing

/// Records from journal fields, and the event column, without a journal.
@Suite struct LaunchLogRecordTests {
    @Test func fieldsBecomeARecord() throws {
        let record = try #require(
            LaunchLogRecord(
                realtimeUsec: 1_772_715_731_151_042,
                fields: [
                    "SPLASHD_LAUNCH": "6f1c0d2e", "SPLASHD_STEP": "greet", "SPLASHD_ATTEMPT": "2",
                    "SPLASHD_DURATION_MS": "11", "MESSAGE_ID": LaunchLogEvent.stepFinished.messageID,
                    "PRIORITY": "6", "MESSAGE": "step greet succeeded in 11ms",
                ]
            )
        )
        #expect(record == LaunchLogRecord(
            realtimeUsec: 1_772_715_731_151_042, launch: "6f1c0d2e", step: "greet", attempt: "2",
            durationMs: "11", messageID: LaunchLogEvent.stepFinished.messageID, priority: 6,
            message: "step greet succeeded in 11ms"
        ))
        #expect(record.kind == .stepFinished)
    }

    @Test func aRecordNeedsALaunch() {
        #expect(LaunchLogRecord(realtimeUsec: 1, fields: ["MESSAGE": "listening", "PRIORITY": "6"]) == nil)
    }

    @Test func aMissingMessageIsEmptyAndABadPriorityIsNil() throws {
        let record = try #require(LaunchLogRecord(realtimeUsec: 1, fields: ["SPLASHD_LAUNCH": "a", "PRIORITY": "loud"]))
        #expect(record.message == "")
        #expect(record.priority == nil)
        #expect(record.event == "-")
    }

    @Test(arguments: LaunchLogEvent.allCases)
    func keyEventsAreNamedByTheirMessageID(kind: LaunchLogEvent) {
        // The priority is ignored when the MESSAGE_ID names a key event.
        let record = LaunchLogRecord(realtimeUsec: 0, launch: "a", messageID: kind.messageID, priority: 3, message: "")
        #expect(record.kind == kind)
        #expect(record.event == kind.rawValue)
        // journalctl prints ids in lower case; one sent in upper case is the same id.
        let upper = LaunchLogRecord(realtimeUsec: 0, launch: "a", messageID: kind.messageID.uppercased(), message: "")
        #expect(upper.event == kind.rawValue)
    }

    @Test func theEventNamesAreTheOnesOfTheBrief() {
        #expect(LaunchLogEvent.allCases.map(\.rawValue) == [
            "launch-started", "step-finished", "step-failed", "phase-changed", "launch-finished",
            "app-exited", "app-hung", "app-crash-loop", "resume", "update-started", "update-finished", "shutdown",
        ])
    }

    @Test(arguments: [
        (0, "emerg"), (1, "alert"), (2, "crit"), (3, "err"), (4, "warning"), (5, "notice"), (6, "info"), (7, "debug"),
    ])
    func otherRecordsAreNamedByTheirPriority(priority: Int, name: String) {
        let record = LaunchLogRecord(realtimeUsec: 0, launch: "a", priority: priority, message: "")
        #expect(record.kind == nil)
        #expect(record.event == name)
    }

    @Test func anUnknownMessageIDFallsBackToThePriority() {
        let record = LaunchLogRecord(
            realtimeUsec: 0, launch: "a", messageID: "00000000000000000000000000000000", priority: 4, message: ""
        )
        #expect(record.kind == nil)
        #expect(record.event == "warning")
    }

    @Test func prioritiesOutsideSyslogsRangeHaveNoName() {
        #expect(LaunchLogRecord.priorityName(-1) == nil)
        #expect(LaunchLogRecord.priorityName(8) == nil)
        #expect(LaunchLogRecord(realtimeUsec: 0, launch: "a", priority: 9, message: "").event == "-")
    }
}
