import Glibc

/// Whether this user can read the whole system journal.
///
/// Opening the system journal does not fail for other users: `sd_journal_open` skips the files
/// it may not read (the system's are `root:systemd-journal 0640`), so splashd's records are
/// just not there. Like `journalctl`'s hint, "not found" then says why it may be.
public enum JournalAccess {
    /// The note for a user who may not read the system journal.
    public static let permissionNote =
        "reading the system journal needs root or membership in group systemd-journal or adm"

    /// The groups whose members read every journal file (`journalctl`'s list, without `wheel`).
    static let readerGroups = ["systemd-journal", "adm"]

    /// ``permissionNote`` when this process is not root and in none of ``readerGroups``; else nil.
    public static func hint() -> String? {
        if geteuid() == 0 { return nil }
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        let filled = count > 0 ? getgroups(count, &groups) : 0
        let mine = Set(groups.prefix(Int(max(filled, 0)))).union([getegid()])
        for name in readerGroups {
            if let entry = getgrnam(name), mine.contains(entry.pointee.gr_gid) { return nil }
        }
        return permissionNote
    }
}
