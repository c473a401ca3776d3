import CLibsystemd
import Glibc
import SplashCore

/// Reads splashd's launch records from the journal through libsystemd's sd-journal (loaded with
/// `dlopen` when the first reader opens: `CLibsystemd`).
///
/// One reader owns one `sd_journal` handle, which is not thread-safe: the reader is a
/// synchronous, non-`Sendable` type, used from one thread and closed when it goes away.
///
/// Only records with `SYSLOG_IDENTIFIER=splashd` (what the daemon sends, see
/// `JournaldLogHandler`) are read, so another program's `SPLASHD_LAUNCH` field is not mixed in.
///
/// Reading one launch: ``select(launch:)``, then ``next()`` until nil. Following it:
/// ``startWatching()`` before the first read, then ``wait(interruptedBy:)`` and ``next()`` again.
public final class JournalReader {
    /// The `SYSLOG_IDENTIFIER` of splashd's records.
    public static let identifier = "splashd"

    /// Where the records come from: the journal files in this directory, or (nil) the local
    /// system journal.
    public let directory: String?
    let journal: OpaquePointer

    /// Opens the journal files in `directory` (like `journalctl -D`), or, when nil, the local
    /// system journal (`SD_JOURNAL_LOCAL_ONLY`: this machine's, every boot).
    public init(directory: String? = nil) throws(JournalReadError) {
        var handle: OpaquePointer?
        let result: Int32
        if let directory {
            result = splashd_journal_open_directory(&handle, directory, 0)
        } else {
            result = splashd_journal_open(&handle, Int32(SD_JOURNAL_LOCAL_ONLY))
        }
        if result == -ELIBACC { throw .cannotLoad(String(cString: splashd_journal_load_error())) }
        guard result >= 0, let handle else { throw .cannotOpen(directory: directory, errno: -result) }
        self.directory = directory
        journal = handle
    }

    deinit { splashd_journal_close(journal) }

    /// Why this user may see no records: ``JournalAccess/hint()`` for the system journal, nil for
    /// a directory (its files are the caller's choice).
    public var accessHint: String? { directory == nil ? JournalAccess.hint() : nil }

    // MARK: Reading a launch

    /// Positions the reader before the first record of `launch`; ``next()`` then returns the
    /// launch's records, oldest first.
    public func select(launch: String) throws(JournalReadError) {
        try match([("SPLASHD_LAUNCH", launch)])
        try check(splashd_journal_seek_head(journal), "seek to the head")
    }

    /// The next record of the selected launch, or nil when there is none (yet).
    public func next() throws(JournalReadError) -> LaunchLogRecord? {
        while try check(splashd_journal_next(journal), "read the next record") > 0 {
            var realtime: UInt64 = 0
            try check(splashd_journal_get_realtime_usec(journal, &realtime), "read a record's time")
            var fields: [String: String] = [:]
            for name in LaunchLogRecord.fieldNames {
                if let value = field(name) { fields[name] = value }
            }
            if let record = LaunchLogRecord(realtimeUsec: realtime, fields: fields) { return record }
        }
        return nil
    }

    // MARK: Following

    /// Starts watching the journal files for changes. Call it before the first read, so that
    /// nothing written between reading and waiting is missed.
    public func startWatching() throws(JournalReadError) {
        try check(splashd_journal_get_fd(journal), "watch the journal")
    }

    /// How ``wait(interruptedBy:)`` ended.
    public enum WaitOutcome: Sendable, Equatable {
        /// The journal may have new records: read on with ``next()``.
        case changed
        /// The other descriptor became readable.
        case interrupted
    }

    /// Waits until the journal changes or `descriptor` (e.g. a signalfd) becomes readable.
    ///
    /// `sd_journal_wait`, with one more descriptor to poll: its parts `sd_journal_get_fd`,
    /// `sd_journal_get_events`, `sd_journal_get_timeout`, then `sd_journal_process`.
    public func wait(interruptedBy descriptor: Int32) throws(JournalReadError) -> WaitOutcome {
        let fd = try check(splashd_journal_get_fd(journal), "watch the journal")
        let events = try check(splashd_journal_get_events(journal), "watch the journal")
        var deadline: UInt64 = 0
        try check(splashd_journal_get_timeout(journal, &deadline), "watch the journal")
        var fds = [
            pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0),
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&fds, nfds_t(fds.count), Self.milliseconds(until: deadline))
        if ready < 0 {
            guard errno == EINTR else { throw .readFailed(operation: "wait for the journal", errno: errno) }
            return .changed
        }
        if fds[1].revents != 0 { return .interrupted }
        try check(splashd_journal_process(journal), "process the journal's changes")
        return .changed
    }

    /// poll(2)'s timeout for `deadline` (CLOCK_MONOTONIC microseconds; `UInt64.max`: none).
    private static func milliseconds(until deadline: UInt64) -> Int32 {
        guard deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowUsec else { return 0 }
        return Int32(min((deadline - nowUsec + 999) / 1000, UInt64(Int32.max)))
    }

    // MARK: sd-journal calls

    /// Replaces the matches with splashd's identifier and `fields` (all must match).
    func match(_ fields: [(name: String, value: String)]) throws(JournalReadError) {
        splashd_journal_flush_matches(journal)
        for (name, value) in [("SYSLOG_IDENTIFIER", Self.identifier)] + fields {
            var bytes = Array("\(name)=\(value)".utf8)
            try check(splashd_journal_add_match(journal, &bytes, bytes.count), "match \(name)")
        }
    }

    /// The value of field `name` in the current record; nil when it has none.
    func field(_ name: String) -> String? {
        var data: UnsafeRawPointer?
        var length = 0
        guard splashd_journal_get_data(journal, name, &data, &length) >= 0, let data else { return nil }
        return Self.value(of: name, in: data, length: length)
    }

    /// The value of `NAME=value` data; nil when the data is not of field `name`.
    static func value(of name: String, in data: UnsafeRawPointer, length: Int) -> String? {
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        let prefix = Array(name.utf8) + [UInt8(ascii: "=")]
        guard bytes.starts(with: prefix) else { return nil }
        return String(decoding: bytes.dropFirst(prefix.count), as: UTF8.self)
    }

    /// `result` when it is not negative; else the error of `operation`.
    @discardableResult
    func check(_ result: Int32, _ operation: String) throws(JournalReadError) -> Int32 {
        guard result >= 0 else { throw .readFailed(operation: operation, errno: -result) }
        return result
    }
}
