/// The `[app]` section (design §14): the app's systemd unit that splashd watches after `finished`,
/// and how it decides that the app is dead, hung or crash-looping.
public struct AppSettings: Sendable, Equatable {
    /// The app's unit, e.g. `kiosk-app.service`.
    public var unit: String
    /// When set, the app sends `{"cmd":"alive"}` at least this often; three missed in a row is a
    /// hang. At least one second.
    public var heartbeat: Duration?
    /// More app recoveries than this within `restartWindow` is a crash loop.
    public var maxRestarts: Int
    /// The window `maxRestarts` counts in.
    public var restartWindow: Duration

    /// The shortest heartbeat accepted.
    public static let minimumHeartbeat = Duration.seconds(1)
    /// Missed heartbeats that make a hang.
    public static let missedHeartbeats = 3

    public init(unit: String, heartbeat: Duration? = nil, maxRestarts: Int = 5, restartWindow: Duration = .seconds(300)) {
        self.unit = unit
        self.heartbeat = heartbeat
        self.maxRestarts = maxRestarts
        self.restartWindow = restartWindow
    }

    /// Why `name` is not the name of a service unit splashd can start, or nil when it is.
    ///
    /// systemd's rules (`unit_name_is_valid`): at most 255 bytes of `[A-Za-z0-9:_.\-@]` (and `\`
    /// escapes), a non-empty prefix, and here the suffix `.service`; a template needs its instance
    /// (`kiosk@1.service`, not `kiosk@.service`).
    public static func problem(withUnitName name: String) -> String? {
        guard !name.isEmpty else { return "is empty" }
        guard name.utf8.count <= 255 else { return "is longer than 255 bytes" }
        guard name.hasSuffix(".service") else { return "must name a .service unit" }
        let prefix = name.dropLast(".service".count)
        guard !prefix.isEmpty else { return "has no name before .service" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.-@\\".unicodeScalars)
        if let bad = prefix.unicodeScalars.first(where: { !allowed.contains($0) }) {
            return "contains \(bad.properties.generalCategory == .control ? "a control character" : "\"\(bad)\""), which a unit name cannot"
        }
        let parts = prefix.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count > 2 { return "has more than one @" }
        if parts.count == 2 {
            if parts[0].isEmpty { return "has no name before @" }
            if parts[1].isEmpty { return "is a template without an instance (e.g. \(parts[0])@1.service)" }
        }
        return nil
    }
}
