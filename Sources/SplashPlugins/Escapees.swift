#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Processes of an attempt outside its process group, and their teardown: SIGTERM, SIGKILL once
/// the clock passes the grace, reaping those that became this process's children.
///
/// The set grows as it is looked at again: the daemon's children that carry `marker`, and every
/// descendant of a member (a member may fork while it is being stopped; what it forks is stopped
/// too). A pid is kept with its start time, so a pid reused by an unrelated process is never
/// signalled.
public struct Escapees: Sendable {
    /// How a teardown went.
    public enum Outcome: Equatable, Sendable {
        /// There was nothing to stop.
        case nothingLeft
        /// `count` processes, all gone after SIGTERM.
        case terminated(count: Int)
        /// `count` processes; SIGKILL was needed, and `gone` is false if some still ran at the end.
        case killed(count: Int, gone: Bool)
    }

    /// How often the processes are looked at while they are stopped.
    static let pollInterval: Duration = .milliseconds(10)
    /// How long a teardown waits for the processes to vanish after SIGKILL.
    static let killDeadline: Duration = .seconds(5)

    /// `NAME=value` that marks the attempt's processes; nil: only the orphans given to `collect`.
    let marker: [UInt8]?
    /// Members by pid, with their start times.
    private var members: [pid_t: UInt64] = [:]
    /// Every member that ever ran.
    private var seen: Set<ProcessIdentity> = []
    /// Members that got SIGTERM.
    private var terminated: Set<ProcessIdentity> = []

    init(marker: [UInt8]?) {
        self.marker = marker
    }

    /// Adds `orphans`, this process's running children that carry the marker, and every
    /// descendant of a member; forgets members that are gone.
    mutating func collect(from table: ProcessTable, orphans: [ProcessTable.Entry] = []) {
        for orphan in orphans { members[orphan.pid] = orphan.startTime }
        if let marker {
            for child in table.children(of: getpid()) where child.isRunning && members[child.pid] == nil {
                if ProcessTable.environment(of: child.pid, contains: marker) { members[child.pid] = child.startTime }
            }
        }
        for pid in table.withDescendants(of: members.keys) where members[pid] == nil {
            members[pid] = table[pid]?.startTime
        }
        members = members.filter { pid, start in table[pid]?.startTime == start }
        for (pid, start) in members where table[pid]?.isRunning == true {
            seen.insert(ProcessIdentity(pid: pid, startTime: start))
        }
    }

    /// Whether no process was found.
    var isEmpty: Bool { members.isEmpty }

    /// Members that still run.
    private func running(in table: ProcessTable) -> [ProcessTable.Entry] {
        members.keys.compactMap { table[$0] }.filter(\.isRunning)
    }

    /// Reaps the members that are zombie children of this process.
    private func reap(in table: ProcessTable) {
        let me = getpid()
        for pid in members.keys {
            guard let entry = table[pid], entry.parent == me, !entry.isRunning else { continue }
            var status: Int32 = 0
            _ = waitpid(pid, &status, WNOHANG)
        }
    }

    /// SIGTERM to every member, SIGKILL to what still runs once `clock` passes `grace` after it,
    /// then waits up to `killDeadline` (on `clock`) until none runs. Call it from a task that is
    /// not cancelled: the grace must not be cut short.
    func tearDown<C: Clock>(grace: Duration, clock: C) async -> Outcome where C.Duration == Duration {
        var escapees = self
        guard await escapees.signal(SIGTERM, until: clock.now.advanced(by: grace), clock: clock, once: true) else {
            let gone = await escapees.signal(SIGKILL, until: clock.now.advanced(by: Self.killDeadline), clock: clock, once: false)
            return .killed(count: escapees.seen.count, gone: gone)
        }
        return escapees.seen.isEmpty ? .nothingLeft : .terminated(count: escapees.seen.count)
    }

    /// Sends `signal` to every running member (with `once`, once to each) and looks again every
    /// `pollInterval` until none runs (true) or `clock` reaches `deadline` (false).
    private mutating func signal<C: Clock>(_ signal: Int32, until deadline: C.Instant, clock: C, once: Bool) async -> Bool
    where C.Duration == Duration {
        while true {
            let table = ProcessTable.scan()
            collect(from: table)
            reap(in: table)
            let running = running(in: table)
            if running.isEmpty { return true }
            for entry in running {
                let identity = ProcessIdentity(entry)
                if once, !terminated.insert(identity).inserted { continue }
                kill(entry.pid, signal)
            }
            if clock.now >= deadline { return false }
            do {
                try await Task.sleep(for: Self.pollInterval)
            } catch {
                return false
            }
        }
    }
}

extension ProcessIdentity {
    init(pid: pid_t, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }
}
