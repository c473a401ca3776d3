import SplashCore
import SplashJSON
import SplashJournalReader
import Testing

/// The table's rows and their escaping, without a journal.
@Suite struct LaunchLogTableTests {
    private static let started = LaunchLogRecord(
        realtimeUsec: 0, launch: "6f1c", messageID: LaunchLogEvent.launchStarted.messageID, priority: 6,
        message: "launch started"
    )
    private static let output = LaunchLogRecord(
        realtimeUsec: 0, launch: "6f1c", step: "config-fetch", attempt: "1", priority: 6, message: "hello"
    )
    private static let failed = LaunchLogRecord(
        realtimeUsec: 0, launch: "6f1c", step: "greet", attempt: "3", durationMs: "12",
        messageID: LaunchLogEvent.stepFailed.messageID, priority: 3, message: "step greet failed: boom"
    )

    @Test func rowsAreAlignedUnderTheHeader() {
        let table = LaunchLogTable(records: [Self.started, Self.output, Self.failed])
        let lines = [
            table.header,
            table.row(Self.started, time: "Mar 05 14:02:11.123"),
            table.row(Self.output, time: "Mar 05 14:02:11.140"),
            table.row(Self.failed, time: "Mar 05 14:02:11.151"),
        ]
        #expect(lines == [
            "TIME                 STEP          ATTEMPT  EVENT            MESSAGE",
            "Mar 05 14:02:11.123  -             -        launch-started   launch started",
            "Mar 05 14:02:11.140  config-fetch  1        info             hello",
            "Mar 05 14:02:11.151  greet         3        step-failed      step greet failed: boom",
        ])
    }

    @Test func theStepColumnIsAtLeastItsHeader() {
        #expect(LaunchLogTable(records: [Self.started]).stepWidth == 4)
        #expect(LaunchLogTable().stepWidth == 4)
        #expect(LaunchLogTable(records: [Self.output]).stepWidth == "config-fetch".count)
    }

    @Test func aWiderStepLaterPushesItsMessageInsteadOfBeingCut() {
        let table = LaunchLogTable(records: [Self.started])
        let row = table.row(Self.output, time: "Mar 05 14:02:11.140")
        #expect(row == "Mar 05 14:02:11.140  config-fetch  1        info             hello")
    }

    @Test func fieldsAreEscapedCompletely() {
        #expect(LaunchLogTable.displayedField("a\u{1B}[2Jb") == #"a\x1b[2Jb"#)
        #expect(LaunchLogTable.displayedField("two\nlines") == #"two\nlines"#)
        #expect(LaunchLogTable.displayedField(#"back\slash"#) == #"back\\slash"#)
        #expect(LaunchLogTable.displayedField("\u{202E}evil") == #"\u202eevil"#)
        #expect(LaunchLogTable.displayedField(nil) == "-")
        #expect(LaunchLogTable.displayedField("") == "-")
    }

    @Test func theMessageKeepsSplashdsEscapesAndEscapesWhatIsLeft() {
        // splashd wrote this one already escaped: shown as it is, not escaped twice.
        let escaped = LogEscaping.escaped("paint \u{1B}[31mred\u{1B}[0m\nnext C:\\dir")
        #expect(escaped == #"paint \x1b[31mred\x1b[0m\nnext C:\\dir"#)
        #expect(LaunchLogTable.displayedMessage(escaped) == escaped)
        // A record splashd did not write may hold control characters: they are escaped.
        #expect(LaunchLogTable.displayedMessage("raw \u{1B}]0;title\u{07} x\ry") == #"raw \x1b]0;title\x07 x\ry"#)
        #expect(LaunchLogTable.displayedMessage("tab\there\u{85}\u{2066}") == #"tab\there\u0085\u2066"#)
        #expect(LaunchLogTable.displayedMessage("é ✓ plain") == "é ✓ plain")
    }

    @Test func noControlCharacterReachesARow() {
        let hostile = LaunchLogRecord(
            realtimeUsec: 0, launch: "x", step: "s\u{1B}[1A", attempt: "1\n2", priority: 6,
            message: "m\u{1B}[2J\u{9B}31m\u{7F}\n\r\u{0}"
        )
        let row = LaunchLogTable(records: [hostile]).row(hostile, time: "Mar 05 14:02:11.123")
        let controls = row.unicodeScalars.filter { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        #expect(controls.isEmpty, "\(row.debugDescription)")
        #expect(row.contains(#"s\x1b[1A"#))
        #expect(row.contains(#"1\n2"#))
        #expect(row.hasSuffix(#"m\x1b[2J\u009b31m\x7f\n\r\x00"#))
    }
}
