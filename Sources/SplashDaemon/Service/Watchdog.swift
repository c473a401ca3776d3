/// Pings the service manager's watchdog every `interval`, but only after a probe made it through
/// the daemon's event loops: a stalled loop stops the pings, and systemd restarts the service.
public struct Watchdog<C: Clock>: Sendable where C.Duration == Duration {
    let interval: Duration
    let clock: C
    /// Completes only when the loops it passes through are alive.
    let probe: @Sendable () async -> Void
    let ping: @Sendable () -> Void

    public init(interval: Duration, clock: C, probe: @escaping @Sendable () async -> Void, ping: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.clock = clock
        self.probe = probe
        self.ping = ping
    }

    /// Runs until cancelled.
    public func run() async {
        var next = clock.now
        while !Task.isCancelled {
            await probe()
            guard !Task.isCancelled else { return }
            ping()
            next = next.advanced(by: interval)
            do { try await clock.sleep(until: next, tolerance: nil) } catch { return }
        }
    }
}
