import Logging
import SplashCore
import SplashJournalWriter
import Testing

/// The fields of one record, built without a journal.
@Suite struct JournalRecordTests {
    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func levelsMapToSyslogPriorities(level: Logger.Level, priority: Int) {
        #expect(JournalRecord.priority(of: level) == priority)
    }

    @Test func stepFinishedRecordCarriesItsMessageIDAndSplashdFields() {
        let event = LogEvent(
            level: .info,
            message: "step fetch succeeded in 12ms",
            metadata: ["duration_ms": "12", "event": "step-finished", "attempt": "1"],
            source: nil,
            file: "SplashDaemon/LaunchLog.swift",
            function: "log(_:launch:to:)",
            line: 27
        )
        let fields = JournalRecord.fields(
            of: event,
            metadata: ["launch": "6f1c", "step": "fetch"].merging(event.metadata!) { _, new in new },
            identifier: "splashd"
        )
        #expect(fields == [
            JournalField("MESSAGE", "step fetch succeeded in 12ms"),
            JournalField("PRIORITY", "6"),
            JournalField("SYSLOG_IDENTIFIER", "splashd"),
            JournalField("CODE_FILE", "SplashDaemon/LaunchLog.swift"),
            JournalField("CODE_LINE", "27"),
            JournalField("CODE_FUNC", "log(_:launch:to:)"),
            JournalField("MESSAGE_ID", LaunchLogEvent.stepFinished.messageID),
            JournalField("SPLASHD_ATTEMPT", "1"),
            JournalField("SPLASHD_DURATION_MS", "12"),
            JournalField("SPLASHD_EVENT", "step-finished"),
            JournalField("SPLASHD_LAUNCH", "6f1c"),
            JournalField("SPLASHD_STEP", "fetch"),
        ])
        #expect(fields.allSatisfy { JournalField.isValidName($0.name) })
    }

    @Test(arguments: LaunchLogEvent.allCases)
    func everyLaunchEventHasItsMessageID(kind: LaunchLogEvent) {
        let fields = JournalRecord.fields(of: Self.event(), metadata: ["event": "\(kind.rawValue)"], identifier: "splashd")
        #expect(fields.filter { $0.name == "MESSAGE_ID" } == [JournalField("MESSAGE_ID", kind.messageID)])
    }

    @Test func unknownEventGetsNoMessageIDButKeepsTheField() {
        let fields = JournalRecord.fields(of: Self.event(), metadata: ["event": "something-else"], identifier: "x")
        #expect(!fields.contains { $0.name == "MESSAGE_ID" })
        #expect(fields.contains(JournalField("SPLASHD_EVENT", "something-else")))
        #expect(fields.contains(JournalField("SYSLOG_IDENTIFIER", "x")))
    }

    @Test func nestedMetadataIsRenderedAsStringsAndOddKeysAreRenamed() {
        let metadata: Logger.Metadata = [
            "list": .array(["a", "b"]),
            "map": .dictionary(["k": "v"]),
            "http.status": .stringConvertible(503),
            "multi line": "one\ntwo",
        ]
        let fields = JournalRecord.fields(of: Self.event(), metadata: metadata, identifier: "splashd")
        let extra = fields.filter { $0.name.hasPrefix("SPLASHD_") }
        #expect(extra == [
            JournalField("SPLASHD_HTTP_STATUS", "503"),
            JournalField("SPLASHD_LIST", #"["a", "b"]"#),
            JournalField("SPLASHD_MAP", #"["k": "v"]"#),
            JournalField("SPLASHD_MULTI_LINE", "one\ntwo"),
        ])
        #expect(fields.allSatisfy { JournalField.isValidName($0.name) })
    }

    @Test func anAttachedErrorBecomesAField() {
        struct Broken: Error, CustomStringConvertible { var description: String { "the pipe broke" } }
        var event = Self.event()
        event.error = Broken()
        let fields = JournalRecord.fields(of: event, metadata: [:], identifier: "splashd")
        #expect(fields.last == JournalField("SPLASHD_ERROR", "the pipe broke"))
    }

    private static func event() -> LogEvent {
        LogEvent(level: .notice, message: "m", metadata: nil, source: nil, file: "F.swift", function: "f()", line: 1)
    }
    /// `journalctl --all` prints MESSAGE as it is: a client's line break or escape must not be in it.
    @Test func theMessageIsEscapedAndTheFieldsKeepTheirValues() {
        let event = LogEvent(
            level: .warning, message: "dropped: x\n2026-01-01T00:00:00.000Z critical FORGED \u{1B}[31m", metadata: nil,
            source: nil, file: "f.swift", function: "f()", line: 1
        )
        let fields = JournalRecord.fields(of: event, metadata: ["input": "x\n\u{1B}"], identifier: "splashd")
        #expect(fields.first == JournalField("MESSAGE", #"dropped: x\n2026-01-01T00:00:00.000Z critical FORGED \x1b[31m"#))
        #expect(fields.last == JournalField("SPLASHD_INPUT", "x\n\u{1B}"))
    }
}
