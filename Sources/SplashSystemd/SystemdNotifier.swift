import CSystemd

/// Service notifications to systemd (`sd_notify`): a no-op when `NOTIFY_SOCKET` is not set.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Sends one or more `KEY=VALUE` lines (e.g. `READY=1`, `STATUS=…`); false when not sent.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        state.withCString { sd_notify(0, $0) } > 0
    }

    /// The watchdog interval systemd expects (`WATCHDOG_USEC`, for this process), if enabled.
    public var watchdogInterval: Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(clamping: usec))
    }
}
