import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The bridge's connections, HTTP and WebSocket, and the cap on them.
///
/// Every connection is a descriptor; without a cap, a local process opening a thousand idle
/// connections took them all and the page could neither load nor connect. At the cap a new
/// connection takes the place of the oldest one that is not a control page's WebSocket (an HTTP
/// connection, or a viewer's WebSocket): the page that holds the token is never pushed out, and a
/// flood of idle connections pushes out only itself. When every connection is a control page's,
/// the newcomer is answered 503 and closed (`BusyHTTP`).
package final class ConnectionTable: Sendable {
    /// The most connections served at once unless the descriptor limit leaves room for fewer.
    static let defaultCapacity = 64
    /// Descriptors kept for the bridge itself: standard streams, event loop, the listening
    /// socket, splashd's socket, the journal, the theme's files while they are read.
    static let reserve = 32

    /// The most connections served at once.
    let capacity: Int

    private struct State {
        var open: [(channel: any Channel, protected: Bool)] = []
        var evictions = 0
    }
    private let state = NIOLockedValueBox(State())

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// `defaultCapacity`, or less when the soft descriptor limit minus `reserve` leaves room for
    /// fewer; at least 1.
    static func capacity(descriptorLimit: Int) -> Int {
        max(1, min(defaultCapacity, descriptorLimit - reserve))
    }

    /// The soft `RLIMIT_NOFILE` now.
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }

    /// The connections served now.
    var count: Int { state.withLockedValue { $0.open.count } }

    /// Connections that took an older one's place, since start.
    var evictions: Int { state.withLockedValue { $0.evictions } }

    /// Counts `channel` in, closing the oldest connection that is not protected when the table is
    /// full; false (nothing counted) when every connection is protected.
    func admit(_ channel: any Channel) -> Bool {
        let admitted: (Bool, (any Channel)?) = state.withLockedValue { state in
            var evicted: (any Channel)?
            if state.open.count >= capacity {
                guard let oldest = state.open.firstIndex(where: { !$0.protected }) else { return (false, nil) }
                evicted = state.open.remove(at: oldest).channel
                state.evictions += 1
            }
            state.open.append((channel, false))
            return (true, evicted)
        }
        guard admitted.0 else { return false }
        admitted.1?.close(promise: nil)
        let key = ObjectIdentifier(channel)
        channel.closeFuture.whenComplete { _ in
            self.state.withLockedValue { $0.open.removeAll { ObjectIdentifier($0.channel) == key } }
        }
        return true
    }

    /// Marks `channel` as one never pushed out for a newcomer: a page with the token.
    func protect(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLockedValue { state in
            if let index = state.open.firstIndex(where: { ObjectIdentifier($0.channel) == key }) { state.open[index].protected = true }
        }
    }
}
