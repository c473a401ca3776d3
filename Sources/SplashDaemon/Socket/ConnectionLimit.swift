import Synchronization

/// How many clients the socket serves at once, and how many it serves now.
///
/// Every client is a descriptor, and so is every pipe of a plugin, every file a built-in writes
/// and every HTTP connection: if clients could take them all, a launch would fail with "Too many
/// open files". So the socket serves at most `capacity` clients: `[socket] max_clients`, but
/// never more than the descriptor limit minus a reserve (`reserve(steps:)`) kept for the daemon
/// and its plugins. A connection over the cap is answered `busy` and closed.
final class ConnectionLimit: Sendable {
    /// Descriptors kept for the daemon itself (standard streams, event loop, listening socket,
    /// journal and notify sockets, state files, HTTP connections) and for plugins, at least.
    static let baseReserve = 64
    /// More descriptors kept per step of the graph: a running external plugin holds two pipes
    /// (and briefly their other ends).
    static let reservePerStep = 4

    /// The most clients served at once.
    let capacity: Int
    private let open = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The descriptors kept for the daemon and the plugins of a graph of `steps` steps.
    static func reserve(steps: Int) -> Int {
        baseReserve + reservePerStep * max(0, steps)
    }

    /// `maxClients`, or less when the descriptor limit (the soft `RLIMIT_NOFILE`) minus the
    /// reserve for `steps` steps leaves room for fewer; at least 1.
    static func capacity(maxClients: Int, descriptorLimit: Int, steps: Int) -> Int {
        max(1, min(maxClients, descriptorLimit - reserve(steps: steps)))
    }

    /// Counts a new client in; false (and nothing counted) when `capacity` are served already.
    func admit() -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < capacity {
            let (exchanged, original) = open.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Counts an admitted client out (its connection closed).
    func release() {
        open.subtract(1, ordering: .relaxed)
    }

    /// The clients served now.
    var count: Int { open.load(ordering: .relaxed) }
}
