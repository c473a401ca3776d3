#if canImport(Glibc)
import Glibc
#endif
@testable import SplashDaemon
import Testing

/// What the kernel says of a socket's peer (issue 48, item 5): uid, gid and supplementary groups,
/// as they were when it connected, and the decision made from them alone.
@Suite struct PeerCredentialsTests {
    /// This process's supplementary groups, as getgroups(2) gives them.
    static func ownGroups() -> [gid_t] {
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        let count = getgroups(Int32(groups.count), &groups)
        return Array(groups.prefix(Int(max(count, 0))))
    }

    @Test func thePeerOfASocketPairIsThisProcessWithItsGroups() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { fds.forEach { close($0) } }
        let peer = try #require(PeerCredentials.of(socket: fds[0]))
        #expect(peer == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid(), groups: Self.ownGroups()))
        // A buffer too small for the groups: the kernel says how large (ERANGE), and is asked again.
        #expect(PeerCredentials.groups(socket: fds[0], capacity: 0) == Self.ownGroups())
        #expect(PeerCredentials.of(socket: -1) == nil)
    }

    @Test func controlIsDecidedFromTheCredentialsTakenAtAccept() {
        let policy = AccessPolicy(daemonUID: 990, controlGID: 100)
        // The PID is this process's, whatever /proc says of it: it decides nothing.
        let nobody = PeerCredentials(pid: getpid(), uid: 65534, gid: 65534, groups: [])
        #expect(!policy.allowsControl(nobody))
        #expect(!policy.allowsControl(nil))
        #expect(policy.allowsControl(PeerCredentials(pid: 0, uid: 65534, gid: 65534, groups: [27, 100])))
        #expect(policy.allowsControl(PeerCredentials(pid: 0, uid: 65534, gid: 100, groups: [])))
        #expect(policy.allowsControl(PeerCredentials(pid: 0, uid: 990, gid: 65534, groups: [])))
        #expect(policy.allowsControl(PeerCredentials(pid: 0, uid: 0, gid: 0, groups: [])))
        #expect(!AccessPolicy(daemonUID: 990, controlGID: nil).allowsControl(PeerCredentials(pid: 0, uid: 65534, gid: 100, groups: [100])))
    }
}
