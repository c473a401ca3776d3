#if canImport(Glibc)
public import Glibc
#endif
import NIOCore

/// Who is at the other end of a Unix socket connection, as the kernel recorded it when the peer
/// connected (`SO_PEERCRED`, `SO_PEERGROUPS`).
///
/// Taken once, at accept, and never read again: a peer's rights are decided from these values
/// alone. `/proc/PID/status` is never read for a decision, because a PID outlives nothing: a
/// peer that connected, forked and exited leaves its connection to its child while its PID may
/// come to name any other process (issue 48, item 5).
struct PeerCredentials: Sendable, Equatable {
    /// The process that connected (it may have exited since, and its PID been reused): names
    /// the peer, never decides what it may do.
    var pid: pid_t
    var uid: uid_t
    var gid: gid_t
    /// The supplementary groups the peer had when it connected; empty when the kernel cannot say
    /// (`SO_PEERGROUPS` came with Linux 4.13).
    var groups: [gid_t]

    /// Most supplementary groups a process can have (`NGROUPS_MAX` on Linux).
    static let maximumGroups = 65_536

    /// The credentials of `channel`'s peer, read from its socket; nil when the channel has no
    /// socket or the socket cannot tell. Call it on the channel's event loop (the child channel
    /// initializer: at accept).
    static func of(_ channel: any Channel) -> PeerCredentials? {
        let read = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
            PeerCredentials.of(socket: $0)
        }
        return read ?? nil
    }

    /// The credentials of the peer of the connected Unix socket `fd`; nil when `SO_PEERCRED`
    /// fails.
    static func of(socket fd: CInt) -> PeerCredentials? {
        var raw = RawPeerCredentials()
        var length = socklen_t(MemoryLayout<RawPeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0,
            length == socklen_t(MemoryLayout<RawPeerCredentials>.size)
        else { return nil }
        return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid, groups: groups(socket: fd))
    }

    /// `SO_PEERGROUPS`: the kernel answers `ERANGE` with the length it needs when the buffer is
    /// too small, so the buffer grows to that and is asked again (the groups are fixed at connect,
    /// so the second answer fits). Empty when the kernel cannot say.
    static func groups(socket fd: CInt, capacity first: Int = 64) -> [gid_t] {
        var capacity = first
        for _ in 0..<3 {
            var groups = [gid_t](repeating: 0, count: capacity)
            var length = socklen_t(capacity * MemoryLayout<gid_t>.stride)
            let result = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, $0.baseAddress, &length) }
            if result == 0 {
                return Array(groups.prefix(min(capacity, Int(length) / MemoryLayout<gid_t>.stride)))
            }
            guard errno == ERANGE else { return [] }
            let needed = Int(length) / MemoryLayout<gid_t>.stride
            guard needed > capacity, needed <= maximumGroups else { return [] }
            capacity = needed
        }
        return []
    }
}

/// `struct ucred` (Glibc's module map hides it without `_GNU_SOURCE`); same layout.
struct RawPeerCredentials: Sendable {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

/// Who may send commands that change state: root, the daemon's own uid, and members of the
/// control group (by primary or supplementary group, as the peer was when it connected).
public struct AccessPolicy: Sendable {
    public var daemonUID: uid_t
    public var controlGID: gid_t?

    public init(daemonUID: uid_t = geteuid(), controlGID: gid_t?) {
        self.daemonUID = daemonUID
        self.controlGID = controlGID
    }

    /// Resolves a group name; nil when there is no such group.
    public static func groupID(named name: String) -> gid_t? {
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }

    /// Whether `peer` may send control commands: decided from its credentials alone.
    func allowsControl(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let controlGID else { return false }
        return peer.gid == controlGID || peer.groups.contains(controlGID)
    }
}
