import CLibsystemd
import SplashCore

extension JournalReader {
    /// The launch `name` stands for: for `last`, ``lastLaunch()`` (nil when splashd has no
    /// launch in the journal); else the launch with that id, or the one launch whose id starts
    /// with it.
    ///
    /// - Throws: ``JournalReadError/noSuchLaunch(_:hint:)`` when no launch has that id or
    ///   prefix, ``JournalReadError/ambiguousLaunch(_:candidates:)`` when several start with it.
    public func launch(named name: String) throws(JournalReadError) -> String? {
        if name == "last" { return try lastLaunch() }
        if try hasRecords(of: name) { return name }
        let candidates = try launches(startingWith: name)
        switch candidates.count {
        case 0: throw .noSuchLaunch(name, hint: accessHint)
        case 1: return candidates[0]
        default: throw .ambiguousLaunch(name, candidates: candidates)
        }
    }

    /// The newest launch: the one of the newest `launch-started` record, or, when no such
    /// record is left in the journal, of the newest record that has `SPLASHD_LAUNCH`. Nil when
    /// splashd has no launch records at all.
    ///
    /// Launch ids are UUIDs, not ordered; a record of an older launch (a late line of a
    /// cancelled step) may come after the next launch's start, so the start record decides.
    public func lastLaunch() throws(JournalReadError) -> String? {
        try match([("MESSAGE_ID", LaunchLogEvent.launchStarted.messageID)])
        if let launch = try newestLaunchField() { return launch }
        try match([])
        return try newestLaunchField()
    }

    /// Walks back from the tail of the current matches to the first record with a launch id.
    private func newestLaunchField() throws(JournalReadError) -> String? {
        try check(splashd_journal_seek_tail(journal), "seek to the tail")
        while try check(splashd_journal_previous(journal), "read the previous record") > 0 {
            if let launch = field("SPLASHD_LAUNCH") { return launch }
        }
        return nil
    }

    /// Whether splashd wrote any record of `launch`.
    public func hasRecords(of launch: String) throws(JournalReadError) -> Bool {
        try select(launch: launch)
        return try check(splashd_journal_next(journal), "read the next record") > 0
    }

    /// The launch ids in the journal that start with `prefix` (sorted; records of splashd
    /// only), for ids given shortened as `splashctl history` prints them.
    public func launches(startingWith prefix: String) throws(JournalReadError) -> [String] {
        try check(splashd_journal_query_unique(journal, "SPLASHD_LAUNCH"), "list the launch ids")
        var candidates: [String] = []
        var data: UnsafeRawPointer?
        var length = 0
        while try check(splashd_journal_enumerate_unique(journal, &data, &length), "list the launch ids") > 0 {
            guard let data, let value = Self.value(of: "SPLASHD_LAUNCH", in: data, length: length) else { continue }
            if value.hasPrefix(prefix) { candidates.append(value) }
        }
        // The unique values come from every program's records: keep splashd's.
        var launches: [String] = []
        for candidate in candidates.sorted() where try hasRecords(of: candidate) {
            launches.append(candidate)
        }
        return launches
    }
}
