/// The plugins built into the daemon, by the name steps use in `plugin = "…"`.
///
/// The one place these names are written: the config loader knows them, the daemon registers
/// its implementations under them, and the embedded default graph is made of them.
public enum BuiltinPlugin: String, CaseIterable, Sendable, Hashable {
    /// Is a user signed in; refreshes the session's tokens when needed.
    case authRefresh = "auth-refresh"
    /// The app's remote config, fetched, cached or from bundled defaults.
    case configFetch = "config-fetch"
    /// The review-prompt launch counter.
    case launchCounter = "launch-counter"
    /// The pending quick action or deep link of a launch.
    case quickAction = "quick-action"
    /// Waits until a client sends `complete` for the step.
    case signal
    /// Starts the app's unit (`[app]`, design §14): added to the graph when `[app]` is set; after
    /// an app exit or hang it restarts the unit.
    case appStart = "app-start"

    /// The name steps use for the plugin (`"auth-refresh"`).
    public var name: String { rawValue }

    /// Every built-in plugin's name.
    public static let names: Set<String> = Set(allCases.map(\.rawValue))
}
