#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Looks at processes by pid, the way the tests need it.
enum ProcessProbe {
    /// Whether `pid` is a process that still runs (exists and is not a zombie).
    ///
    /// Orphans are reparented to init, which in some containers never reaps them; a zombie has
    /// stopped running and holds nothing open, so it counts as gone.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else {
            return true
        }
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state != "Z" && state != "X"
    }

    /// The pid written (as decimal text) to the file at `path`, if it is there and complete.
    static func pid(inFile path: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else {
            return nil
        }
        return pid_t(String(text.dropLast()))
    }
}
