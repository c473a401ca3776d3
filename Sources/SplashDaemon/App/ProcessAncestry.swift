#if canImport(Glibc)
import Glibc
#endif
import SplashSupport

/// Parents of processes, from `/proc/PID/stat`.
enum ProcessAncestry {
    /// Most generations looked up.
    static let maximumDepth = 32

    /// Whether `pid` is `ancestor` or one of its descendants (as far as `/proc` still shows them).
    static func descends(_ pid: pid_t, from ancestor: pid_t) -> Bool {
        var current = pid
        for _ in 0..<maximumDepth {
            if current == ancestor { return true }
            guard current > 1, let parent = parent(of: current) else { return false }
            current = parent
        }
        return false
    }

    /// The parent of `pid`: field 4 of `/proc/PID/stat`, after the command name, which is in
    /// parentheses and may hold any byte (so the fields are read after its last `)`).
    static func parent(of pid: pid_t) -> pid_t? {
        guard let bytes = AtomicFile.read("/proc/\(pid)/stat", limit: 4096),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 1 else { return nil }
        return pid_t(String(decoding: fields[1], as: UTF8.self))
    }
}
