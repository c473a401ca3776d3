#if canImport(Glibc)
import Glibc
#endif

/// Whether stderr is connected to the journal, by systemd's documented `JOURNAL_STREAM` check.
///
/// systemd sets `JOURNAL_STREAM=DEV:INODE` (decimal) for a service whose stdout or stderr is a
/// journal stream; the stream is ours only if fstat(2) of the descriptor gives the same device and
/// inode (a child that redirected stderr inherits the variable but not the stream).
public enum JournalStream {
    /// True when `JOURNAL_STREAM` in `environment` names the file stderr is open on.
    public static func stderrIsJournal(environment: [String: String]) -> Bool {
        matches(environment["JOURNAL_STREAM"], fileDescriptor: 2)
    }

    /// True when `value` is `DEV:INODE` and equals fstat(2)'s `st_dev:st_ino` of `fileDescriptor`.
    public static func matches(_ value: String?, fileDescriptor: Int32) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
