/// The last launches, oldest first, bounded to `capacity` records; stored as JSON Lines.
///
/// One record per line, so a torn write or a garbage line costs only that line: `decode` skips
/// malformed lines and counts them. The owner appends a finished launch's line and now and then
/// replaces the whole file; a line with the same launch id as the line before it replaces that
/// one (a launch saved twice), so appending a launch again is harmless.
public struct HistoryLog: Sendable, Equatable {
    /// What `decode` found.
    public struct Decoded: Sendable, Equatable {
        public var log: HistoryLog
        /// Lines that were not a record (skipped).
        public var malformedLines: Int
    }

    /// How many launches are kept unless configured otherwise.
    public static let defaultCapacity = 20

    /// Oldest first.
    public private(set) var records: [LaunchRecord]
    public let capacity: Int

    /// Keeps the newest `capacity` of `records` (given oldest first).
    public init(records: [LaunchRecord] = [], capacity: Int = HistoryLog.defaultCapacity) {
        self.capacity = max(1, capacity)
        self.records = Array(records.suffix(self.capacity))
    }

    /// The newest record, if any.
    public var last: LaunchRecord? { records.last }

    /// The log with `record` added as the newest; the oldest beyond `capacity` are dropped.
    /// A record with the same launch id as the newest one replaces it (a launch saved twice).
    public func appending(_ record: LaunchRecord) -> HistoryLog {
        var records = self.records
        if records.last?.launch == record.launch { records.removeLast() }
        records.append(record)
        return HistoryLog(records: records, capacity: capacity)
    }

    /// The records of launches of a graph with `fingerprint`, oldest first.
    public func records(matching fingerprint: String) -> [LaunchRecord] {
        records.filter { $0.graphFingerprint == fingerprint }
    }

    /// JSON Lines: one record per line, each line ending with a newline.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for record in records {
            bytes.append(contentsOf: record.jsonLine())
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Reads JSON Lines; blank lines are ignored, malformed ones skipped and counted. A record
    /// with the same launch id as the one before it replaces it, as in `appending(_:)`.
    public static func decode(_ bytes: some Collection<UInt8>, capacity: Int = HistoryLog.defaultCapacity) -> Decoded {
        var records: [LaunchRecord] = []
        var malformed = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                let record = try LaunchRecord(jsonLine: line)
                if records.last?.launch == record.launch { records.removeLast() }
                records.append(record)
            } catch {
                malformed += 1
            }
        }
        return Decoded(log: HistoryLog(records: records, capacity: capacity), malformedLines: malformed)
    }
}
