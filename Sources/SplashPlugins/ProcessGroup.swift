#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A process group of an external plugin: signalling it and waiting until it is gone.
///
/// All signals go through kill(2) with the negative group id. A group counts as gone when no
/// member is left that still runs: zombies do not count, as orphans are reaped by whatever
/// init the system has, which may take its time (or, in some containers, never happens).
struct ProcessGroup: Sendable, Equatable {
    /// How a teardown ended.
    enum Teardown: Equatable {
        /// Nothing of the group was running any more.
        case alreadyGone
        /// The group exited within the grace period after SIGTERM.
        case terminated
        /// SIGKILL was needed; `gone` is false if members were still left at the final deadline.
        case killed(gone: Bool)
    }

    /// The process group id (the pid of its first member).
    let id: pid_t

    /// How often `waitUntilGone` looks.
    static let pollInterval: Duration = .milliseconds(10)
    /// How long a teardown waits for the group to vanish after SIGKILL.
    static let killDeadline: Duration = .seconds(5)

    /// Sends `signal` to every member; false if there was no member left.
    @discardableResult
    func send(_ signal: Int32) -> Bool {
        guard id > 1 else { return false }
        return kill(-id, signal) == 0
    }

    /// Whether any member of the group still runs (is not a zombie).
    var hasRunningMembers: Bool {
        guard id > 1 else { return false }
        if kill(-id, 0) != 0, errno == ESRCH {
            return false
        }
        #if os(Linux)
        return Self.procHasRunningMember(ofGroup: id)
        #else
        return true
        #endif
    }

    /// Waits until the group is gone (looking every `pollInterval`) or `clock` reaches
    /// `deadline`, whichever comes first; true if it is gone.
    ///
    /// The deadline is a sleep on `clock`: call it from a task that is not cancelled (a cancelled
    /// one would take the deadline as passed at once).
    func waitUntilGone<C: Clock>(deadline: C.Instant, clock: C) async -> Bool where C.Duration == Duration {
        guard hasRunningMembers else { return true }
        let gone = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try? await clock.sleep(until: deadline, tolerance: nil)
                return false
            }
            tasks.addTask {
                while hasRunningMembers {
                    do { try await Task.sleep(for: Self.pollInterval) } catch { return false }
                }
                return true
            }
            let first = await tasks.next() ?? false
            tasks.cancelAll()
            return first
        }
        return gone || !hasRunningMembers
    }

    /// SIGTERM to the group, SIGKILL once `clock` passes `grace` after it, then waits (up to
    /// `killDeadline` on `clock`) until the group is gone. Like `waitUntilGone`, it needs a task
    /// that is not cancelled (`GroupLifecycle` runs it in one).
    ///
    /// - Parameter termSentAt: When SIGTERM was already sent (by a cancellation); then it is not
    ///   sent again and SIGKILL follows at `termSentAt + grace`.
    func tearDown<C: Clock>(grace: Duration, termSentAt: C.Instant? = nil, clock: C) async -> Teardown
    where C.Duration == Duration {
        guard hasRunningMembers else { return .alreadyGone }
        let termTime: C.Instant
        if let termSentAt {
            termTime = termSentAt
        } else {
            termTime = clock.now
            send(SIGTERM)
        }
        if await waitUntilGone(deadline: termTime.advanced(by: grace), clock: clock) {
            return .terminated
        }
        send(SIGKILL)
        let gone = await waitUntilGone(deadline: clock.now.advanced(by: Self.killDeadline), clock: clock)
        return .killed(gone: gone)
    }

    #if os(Linux)
    /// Whether /proc lists a process of group `pgid` that is not a zombie (true if unreadable).
    private static func procHasRunningMember(ofGroup pgid: pid_t) -> Bool {
        guard let directory = opendir("/proc") else { return true }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name) else { continue }
            guard let (state, group) = readStat(pid: pid) else { continue }
            if group == pgid, state != "Z", state != "X" {
                return true
            }
        }
        return false
    }

    /// The state letter and process group of `pid` from /proc/PID/stat.
    private static func readStat(pid: pid_t) -> (state: Character, pgid: pid_t)? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // "PID (COMM) S PPID PGRP ..."; COMM may contain spaces and parentheses.
        let bytes = buffer[..<count]
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = String(decoding: bytes[(close + 1)...], as: UTF8.self)
            .split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 3, let state = fields[0].first, let group = pid_t(fields[2]) else {
            return nil
        }
        return (state, group)
    }
    #endif
}
