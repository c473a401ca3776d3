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

import TestSupport

/// Looks at processes by pid, the way the tests need it.
enum ProcessProbe {
    /// Whether `pid` is a process that still runs (exists and is not a zombie).
    static func isRunning(_ pid: pid_t) -> Bool { ProcessStatus.isRunning(pid) }

    /// The pid written (as decimal text) to the file at `path`, if it is there and complete.
    static func pid(inFile path: String) -> pid_t? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else {
            return nil
        }
        return pid_t(String(text.dropLast()))
    }
}
