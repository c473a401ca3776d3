import Glibc

/// Why `splashctl logs` could not show a launch's records.
///
/// Every case has a message fit for an operator (`description`) and an exit status (`exitCode`)
/// in the style of `ClientError`.
public enum JournalReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The journal could not be opened (`directory` nil: the local system journal); `errno`
    /// is the negated return value of `sd_journal_open*`.
    case cannotOpen(directory: String?, errno: Int32)
    /// libsystemd (`libsystemd.so.0`, loaded when the journal is first opened) could not be
    /// loaded: the loader's reason.
    case cannotLoad(String)
    /// No splashd record has this launch id (nor does any launch id start with it).
    case noSuchLaunch(String, hint: String?)
    /// More than one launch id starts with this prefix.
    case ambiguousLaunch(String, candidates: [String])
    /// `last`: no splashd record of any launch is in the journal.
    case noLaunch(hint: String?)
    /// A call on an open journal failed (`operation` names it).
    case readFailed(operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .cannotOpen(let directory, let errno):
            let what = directory.map { "the journal files in \($0)" } ?? "the system journal"
            var text = "cannot open \(what): \(Self.describe(errno))"
            if errno == EACCES || errno == EPERM { text += " (\(JournalAccess.permissionNote))" }
            return text
        case .cannotLoad(let reason):
            return "cannot read the journal without libsystemd: \(LaunchLogTable.displayedField(reason))"
        case .noSuchLaunch(let launch, let hint):
            return "no records of launch \(LaunchLogTable.displayedField(launch)) in the journal" + Self.suffix(hint)
        case .ambiguousLaunch(let prefix, let candidates):
            let list = candidates.map { LaunchLogTable.displayedField($0) }.joined(separator: ", ")
            return "more than one launch starts with \(LaunchLogTable.displayedField(prefix)): \(list)"
        case .noLaunch(let hint):
            return "no splashd launch in the journal" + Self.suffix(hint)
        case .readFailed(let operation, let errno):
            return "cannot read the journal (\(operation)): \(Self.describe(errno))"
        }
    }

    /// The exit status: 77 (`EX_NOPERM`) when the journal may not be read, 74 (`EX_IOERR`) for
    /// other failures of the journal, 1 when the launch is not there (or not one launch).
    public var exitCode: Int32 {
        switch self {
        case .cannotOpen(_, let errno): errno == EACCES || errno == EPERM ? 77 : 74
        case .readFailed, .cannotLoad: 74
        case .noSuchLaunch, .ambiguousLaunch, .noLaunch: 1
        }
    }

    private static func suffix(_ hint: String?) -> String { hint.map { " (\($0))" } ?? "" }

    /// `strerror` of `errno`.
    static func describe(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }
}
