/// Where the daemon's socket lives unless told otherwise.
public enum SocketDefaults {
    /// The default path when neither `--socket` nor the config nor `$SPLASHD_SOCKET` names one.
    public static let path = "/run/splashd/splashd.sock"

    /// `$SPLASHD_SOCKET` when set and not empty, else `path`.
    public static func path(environment: [String: String]) -> String {
        if let value = environment["SPLASHD_SOCKET"], !value.isEmpty { return value }
        return path
    }

    /// The longest line a peer may send, in bytes (without the `\n`).
    public static let maxLineBytes = 64 * 1024
}
