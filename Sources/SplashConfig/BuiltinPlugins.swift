/// The plugins built into the daemon; steps may always use them.
public enum BuiltinPlugins {
    /// Names of the built-in plugins.
    public static let names: Set<String> = ["auth-refresh", "config-fetch", "launch-counter", "quick-action", "signal"]
}
