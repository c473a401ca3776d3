#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SplashSupport

/// A snapshot of this process's descendants from /proc: who is whose parent, in which process
/// group, running or a zombie. Empty where there is no /proc (the containment then
/// finds nothing).
struct ProcessTable {
    /// One process, from `/proc/PID/stat`.
    struct Entry: Equatable {
        var pid: pid_t
        var parent: pid_t
        var group: pid_t
        /// The state letter (`R`, `S`, `Z`, ...).
        var state: UInt8
        /// Clock ticks after boot at which it started: with the pid, it names one process even
        /// after the pid was reused.
        var startTime: UInt64

        /// Whether it still runs (is neither a zombie nor dead).
        var isRunning: Bool { state != UInt8(ascii: "Z") && state != UInt8(ascii: "X") }
    }

    /// The processes by pid.
    private(set) var entries: [pid_t: Entry] = [:]
    /// The pids of each process's children.
    private var childrenByParent: [pid_t: [pid_t]] = [:]

    init(_ entries: [Entry]) {
        for entry in entries {
            self.entries[entry.pid] = entry
            childrenByParent[entry.parent, default: []].append(entry.pid)
        }
    }

    /// This process's descendants (not itself): from the `children` files of /proc (Linux 3.5
    /// with `CONFIG_PROC_CHILDREN`, as Debian and most distributions build it), which makes a
    /// look a few file reads instead of one per process on the system; else from every process.
    static func scan() -> ProcessTable {
        let me = getpid()
        guard let children = childPids(of: me) else { return scanAll() }
        var found: [Entry] = []
        var visited: Set<pid_t> = [me]
        var pending = children
        while let pid = pending.popLast() {
            guard visited.insert(pid).inserted, let entry = readStat(pid) else { continue }
            found.append(entry)
            pending.append(contentsOf: childPids(of: pid) ?? [])
        }
        return ProcessTable(found)
    }

    /// The children of `pid`, from `/proc/PID/task/*/children`; nil when there are no such files.
    private static func childPids(of pid: pid_t) -> [pid_t]? {
        #if os(Linux)
        guard let tasks = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(tasks) }
        var result: [pid_t] = []
        var sawFile = false
        while let item = readdir(tasks) {
            guard let tid = pidName(item) else { continue }
            guard let bytes = try? FileSystem.readFile("/proc/\(pid)/task/\(tid)/children", limit: 1 << 20) else { continue }
            sawFile = true
            for field in bytes.split(separator: UInt8(ascii: " ")) {
                if let child = number(field), child > 0 { result.append(pid_t(child)) }
            }
        }
        return sawFile || access("/proc/self/task/\(getpid())/children", F_OK) == 0 ? result : nil
        #else
        return nil
        #endif
    }

    /// Reads every `/proc/PID/stat`; processes that vanish while it reads are left out.
    static func scanAll() -> ProcessTable {
        var found: [Entry] = []
        #if os(Linux)
        guard let directory = opendir("/proc") else { return ProcessTable([]) }
        defer { closedir(directory) }
        while let item = readdir(directory) {
            if let pid = pidName(item), let entry = readStat(pid) { found.append(entry) }
        }
        #endif
        return ProcessTable(found)
    }

    #if os(Linux)
    /// A directory entry's name as a pid, if it is all digits.
    private static func pidName(_ item: UnsafeMutablePointer<dirent>) -> pid_t? {
        withUnsafeBytes(of: item.pointee.d_name) { raw in
            var value: pid_t = 0
            var digits = 0
            for byte in raw {
                if byte == 0 { break }
                guard byte >= 0x30, byte <= 0x39, digits < 10 else { return nil }
                value = value * 10 + pid_t(byte - 0x30)
                digits += 1
            }
            return digits > 0 ? value : nil
        }
    }
    #endif

    /// The entry of `pid`, if it was there.
    subscript(pid: pid_t) -> Entry? { entries[pid] }

    /// The children of `pid`.
    func children(of pid: pid_t) -> [Entry] {
        (childrenByParent[pid] ?? []).compactMap { entries[$0] }
    }

    /// `roots` and all their descendants that are in the table.
    func withDescendants(of roots: some Sequence<pid_t>) -> Set<pid_t> {
        var result: Set<pid_t> = []
        var pending = Array(roots)
        while let pid = pending.popLast() {
            guard result.insert(pid).inserted else { continue }
            pending.append(contentsOf: childrenByParent[pid] ?? [])
        }
        return result.filter { entries[$0] != nil }
    }

    /// `/proc/PID/stat`: "PID (COMM) S PPID PGRP SESSION ..."; COMM may hold spaces and parens.
    static func readStat(_ pid: pid_t) -> Entry? {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/stat", limit: 4096),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        // After COMM: state(0) ppid(1) pgrp(2) session(3) tty(4) tpgid(5) flags(6) minflt(7)
        // cminflt(8) majflt(9) cmajflt(10) utime(11) stime(12) cutime(13) cstime(14) priority(15)
        // nice(16) threads(17) itrealvalue(18) starttime(19).
        guard fields.count > 19, let state = fields[0].first,
            let parent = number(fields[1]), let group = number(fields[2]), let start = number(fields[19])
        else { return nil }
        return Entry(pid: pid, parent: pid_t(parent), group: pid_t(group), state: state, startTime: UInt64(start))
    }

    /// Whether the environment `pid` was started with holds `entry` (`NAME=value`, whole).
    /// False when it cannot be read: another user's process, a zombie, one that is gone.
    static func environment(of pid: pid_t, contains entry: [UInt8]) -> Bool {
        guard let bytes = try? FileSystem.readFile("/proc/\(pid)/environ", limit: 1 << 20) else { return false }
        return bytes.split(separator: 0, omittingEmptySubsequences: true).contains { $0.elementsEqual(entry) }
    }

    private static func number(_ field: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for byte in field {
            guard byte >= 0x30, byte <= 0x39 else { return field.first == UInt8(ascii: "-") ? -1 : nil }
            value = value &* 10 &+ Int64(byte - 0x30)
        }
        return field.isEmpty ? nil : value
    }
}
