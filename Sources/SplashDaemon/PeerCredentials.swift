#if canImport(Glibc)
public import Glibc
#endif
import NIOCore

/// Who is at the other end of a Unix socket connection (SO_PEERCRED).
struct PeerCredentials: Sendable, Equatable {
    var pid: pid_t
    var uid: uid_t
    var gid: gid_t

    /// Reads the credentials of `channel`'s peer; nil when the socket cannot tell.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<RawPeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return future.map { Optional(PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid)) }.recover { _ in nil }
    }

    /// The peer's supplementary groups, from `/proc/PID/status` (empty when unreadable).
    func supplementaryGroups() -> [gid_t] {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            let text = String(cString: line)
            if text.hasPrefix("Groups:") {
                return text.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                    .compactMap { gid_t($0) }
            }
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
/// control group.
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

    /// Whether `peer` may send control commands.
    func allowsControl(_ peer: PeerCredentials?) -> Bool {
        guard let peer else { return false }
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let controlGID else { return false }
        return peer.gid == controlGID || peer.supplementaryGroups().contains(controlGID)
    }
}
