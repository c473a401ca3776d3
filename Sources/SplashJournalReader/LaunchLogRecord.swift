public import SplashCore

/// One journal record of a launch, with the fields `splashctl logs` shows.
///
/// splashd writes these fields itself (`JournalRecord` in SplashJournalWriter): every record of a
/// launch has `SPLASHD_LAUNCH`; step records add `SPLASHD_STEP` and `SPLASHD_ATTEMPT`; key
/// events add a `MESSAGE_ID` (``LaunchLogEvent``), `SPLASHD_PHASE` and `SPLASHD_DURATION_MS`.
/// Values are kept as the journal holds them; escaping is the formatters' job
/// (``LaunchLogTable``, ``jsonLine``).
public struct LaunchLogRecord: Sendable, Equatable {
    /// When journald received the record: microseconds since the Unix epoch.
    public var realtimeUsec: UInt64
    /// `SPLASHD_LAUNCH`.
    public var launch: String
    /// `SPLASHD_STEP`, for a step's records (its events and its plugin's output).
    public var step: String?
    /// `SPLASHD_ATTEMPT`, as the journal holds it (a number from splashd).
    public var attempt: String?
    /// `SPLASHD_PHASE`, for phase changes and the launch's end.
    public var phase: String?
    /// `SPLASHD_DURATION_MS`, for finished and failed steps and the launch's end.
    public var durationMs: String?
    /// `MESSAGE_ID`, for the key events of ``LaunchLogEvent``.
    public var messageID: String?
    /// `PRIORITY`: 0 (emerg) … 7 (debug); nil when missing or not a number.
    public var priority: Int?
    /// `MESSAGE` (splashd already escaped it, see ``LaunchLogTable/displayedMessage(_:)``).
    public var message: String

    /// The journal fields a record is read from.
    public static let fieldNames = [
        "SPLASHD_LAUNCH", "SPLASHD_STEP", "SPLASHD_ATTEMPT", "SPLASHD_PHASE", "SPLASHD_DURATION_MS",
        "MESSAGE_ID", "PRIORITY", "MESSAGE",
    ]

    /// A record with every field given.
    public init(
        realtimeUsec: UInt64,
        launch: String,
        step: String? = nil,
        attempt: String? = nil,
        phase: String? = nil,
        durationMs: String? = nil,
        messageID: String? = nil,
        priority: Int? = nil,
        message: String
    ) {
        self.realtimeUsec = realtimeUsec
        self.launch = launch
        self.step = step
        self.attempt = attempt
        self.phase = phase
        self.durationMs = durationMs
        self.messageID = messageID
        self.priority = priority
        self.message = message
    }

    /// The record of a journal entry's `fields` (name → value, for the names of ``fieldNames``
    /// that the entry has); nil without `SPLASHD_LAUNCH`.
    public init?(realtimeUsec: UInt64, fields: [String: String]) {
        guard let launch = fields["SPLASHD_LAUNCH"] else { return nil }
        self.init(
            realtimeUsec: realtimeUsec,
            launch: launch,
            step: fields["SPLASHD_STEP"],
            attempt: fields["SPLASHD_ATTEMPT"],
            phase: fields["SPLASHD_PHASE"],
            durationMs: fields["SPLASHD_DURATION_MS"],
            messageID: fields["MESSAGE_ID"],
            priority: fields["PRIORITY"].flatMap { Int($0) },
            message: fields["MESSAGE"] ?? ""
        )
    }

    /// The key event this record is, by its `MESSAGE_ID`; nil for any other record.
    public var kind: LaunchLogEvent? {
        guard let messageID else { return nil }
        return LaunchLogEvent.allCases.first { $0.messageID == messageID.lowercased() }
    }

    /// The table's event column: the key event's name (`launch-started`, `step-finished`,
    /// `step-failed`, `phase-changed`, `launch-finished`), else the priority's name (`info`,
    /// `warning`, …), else `-`.
    public var event: String {
        kind?.rawValue ?? priority.flatMap(Self.priorityName) ?? "-"
    }

    /// The syslog name of `priority` as `journalctl -p` spells it (`err`, `warning`, `info`, …);
    /// nil outside 0...7.
    public static func priorityName(_ priority: Int) -> String? {
        let names = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]
        return names.indices.contains(priority) ? names[priority] : nil
    }
}
