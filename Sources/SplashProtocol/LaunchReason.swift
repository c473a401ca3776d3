/// Why a launch began (design §14). Every state carries it, and so do the history, the journal
/// (`SPLASHD_REASON`) and the traces (`splashd.launch.reason`).
public enum LaunchReason: String, Sendable, Equatable, CaseIterable, Codable {
    /// The daemon's first launch since it started.
    case boot
    /// A client asked for a new launch (`relaunch`).
    case relaunch
    /// A `relaunch` that took up a configuration reloaded on SIGHUP.
    case reload
    /// The app's unit stopped without being asked to (it exited or failed).
    case appExited = "app-exited"
    /// The app missed three heartbeats and its unit was killed.
    case appHung = "app-hung"
    /// A `resume` found the session gone or a critical check failing.
    case resume

    /// Whether the launch brings a dead or killed app back: it restarts the app's unit, and the
    /// app goes back where it was (restoration).
    public var recoversApp: Bool { self == .appExited || self == .appHung }
}
