import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the processes of an external plugin's attempt that left its process group (`setsid`,
/// `setpgid`, a double fork) and stops them when the attempt ends: SIGTERM, SIGKILL after the
/// grace, and reaps them.
///
/// It relies on the daemon being a child subreaper (`PR_SET_CHILD_SUBREAPER`, which the daemon
/// sets at start): an orphaned descendant of a plugin is then reparented to the daemon instead
/// of init, so every process a plugin started is the daemon's descendant until it dies. Which
/// attempt it belongs to is told by `SPLASHD_STEP_TOKEN`, a variable set for each attempt and
/// inherited by everything it starts; `/proc/PID/environ` shows the environment a process was
/// started with. When an attempt ends, the daemon's children that carry its token, and all their
/// descendants, are stopped.
///
/// A process that emptied its environment (`env -i`) carries no token. With `ownsAllChildren`
/// (the daemon, whose only children are plugins) every child that is not the main process of a
/// running attempt is an orphan of some plugin: whenever no attempt is running, all of them are
/// stopped, and zombies among them reaped. Without it (a process that has other children, such
/// as a test runner) only marked processes are touched, and only the ones this object stopped
/// are reaped.
///
/// Without /proc, or where the subreaper cannot be set, nothing is found: the process-group
/// teardown is all there is.
public final class PluginContainment: Sendable {
    /// The variable that marks every process of one attempt.
    public static let tokenVariable = "SPLASHD_STEP_TOKEN"

    /// One attempt, from `begin()` to `end(_:grace:clock:)`.
    struct Attempt: Sendable, Hashable {
        /// The value of `tokenVariable` for its processes.
        var token: String
        /// `NAME=value` as it appears in `/proc/PID/environ`.
        var environmentEntry: [UInt8] { Array("\(PluginContainment.tokenVariable)=\(token)".utf8) }
    }

    private struct State {
        /// Attempts between `begin` and `end`.
        var live: Set<String> = []
        /// Attempts whose main process may exist but is not yet known.
        var spawning: Set<String> = []
        /// Main processes of live attempts: Subprocess reaps them, never this object.
        var leaders: Set<pid_t> = []
        var leaderOf: [String: pid_t] = [:]
        var counter: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Unique to this object in this process, so that tokens of another daemon never match.
    private let prefix: String
    /// Whether every child of this process is a plugin's (see the type's description).
    public let ownsAllChildren: Bool
    /// Children this process had before, by pid and start time: never a plugin's.
    private let foreign: Set<ProcessIdentity>

    /// A containment for this process; `ownsAllChildren` when plugins are its only children.
    public init(ownsAllChildren: Bool = false) {
        self.ownsAllChildren = ownsAllChildren
        prefix = "\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
        let me = getpid()
        foreign = ownsAllChildren ? Set(ProcessTable.scan().children(of: me).map(ProcessIdentity.init)) : []
    }

    /// Starts an attempt: its token goes into the environment of the process it spawns.
    func begin() -> Attempt {
        state.withLock { state in
            state.counter += 1
            let token = "\(prefix)-\(state.counter)"
            state.live.insert(token)
            state.spawning.insert(token)
            return Attempt(token: token)
        }
    }

    /// The attempt's main process was spawned.
    func started(_ attempt: Attempt, leader: pid_t) {
        state.withLock { state in
            state.spawning.remove(attempt.token)
            state.leaders.insert(leader)
            state.leaderOf[attempt.token] = leader
        }
    }

    /// Ends an attempt whose main process was reaped and whose process group is gone: what is
    /// left of it (and, with `ownsAllChildren` and no other attempt running, every orphan), for
    /// `Escapees.tearDown` and then `tornDown()`; nil when nothing is (the usual case, which
    /// costs one look at the daemon's descendants and no task).
    func end(_ attempt: Attempt) -> Escapees? {
        state.withLock { state -> Escapees? in
            state.live.remove(attempt.token)
            state.spawning.remove(attempt.token)
            if let leader = state.leaderOf.removeValue(forKey: attempt.token) { state.leaders.remove(leader) }
            // Under the lock: no attempt can begin (and spawn a child) between the look at the
            // attempts and the look at the children.
            let idle = ownsAllChildren && state.live.isEmpty
            var escapees = Escapees(marker: attempt.environmentEntry)
            let table = ProcessTable.scan()
            escapees.collect(from: table, orphans: idle ? orphans(in: table, state: state) : [])
            if ownsAllChildren, state.spawning.isEmpty {
                reapZombies(in: table, state: state)
            }
            return escapees.isEmpty ? nil : escapees
        }
    }

    /// After a teardown of `end`'s escapees: reaps the zombies they left (with `ownsAllChildren`).
    func tornDown() {
        state.withLock { state in
            if ownsAllChildren, state.spawning.isEmpty { reapZombies(in: ProcessTable.scan(), state: state) }
        }
    }

    /// At shutdown, after every attempt ended: stops every orphan left (with `ownsAllChildren`).
    public func stopOrphans(grace: Duration) async -> Escapees.Outcome {
        guard ownsAllChildren else { return .nothingLeft }
        let escapees = state.withLock { state -> Escapees in
            let table = ProcessTable.scan()
            var escapees = Escapees(marker: nil)
            escapees.collect(from: table, orphans: orphans(in: table, state: state))
            return escapees
        }
        let outcome = await escapees.tearDown(grace: grace, clock: ContinuousClock())
        state.withLock { state in
            if state.spawning.isEmpty { reapZombies(in: ProcessTable.scan(), state: state) }
        }
        return outcome
    }

    /// Running children that are neither a live attempt's main process nor foreign.
    private func orphans(in table: ProcessTable, state: State) -> [ProcessTable.Entry] {
        table.children(of: getpid()).filter {
            $0.isRunning && !state.leaders.contains($0.pid) && !foreign.contains(ProcessIdentity($0))
        }
    }

    /// Reaps zombie children that no one else waits for (only with `ownsAllChildren`, while no
    /// attempt is between spawn and `started`: a zombie main process may not be stolen from
    /// Subprocess).
    private func reapZombies(in table: ProcessTable, state: State) {
        for child in table.children(of: getpid()) where !child.isRunning {
            guard !state.leaders.contains(child.pid), !foreign.contains(ProcessIdentity(child)) else { continue }
            var status: Int32 = 0
            _ = waitpid(child.pid, &status, WNOHANG)
        }
    }
}

/// A process named by its pid and start time, which stay valid together after the pid is reused.
struct ProcessIdentity: Hashable, Sendable {
    var pid: pid_t
    var startTime: UInt64

    init(_ entry: ProcessTable.Entry) {
        pid = entry.pid
        startTime = entry.startTime
    }
}
