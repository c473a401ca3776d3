/// An external plugin, as described by a manifest `NAME.toml` in a plugin directory.
public struct PluginManifest: Sendable, Equatable {
    /// The plugin name steps refer to (the manifest's file name without `.toml`).
    public var name: String
    /// Absolute path of the executable (the manifest's `exec`, resolved against its directory).
    public var executable: String
    public var description: String?
    /// Default per-attempt timeout for steps using this plugin.
    public var timeout: Duration?
    /// The manifest file, for messages.
    public var manifestPath: String

    public init(name: String, executable: String, description: String? = nil, timeout: Duration? = nil, manifestPath: String) {
        self.name = name
        self.executable = executable
        self.description = description
        self.timeout = timeout
        self.manifestPath = manifestPath
    }
}
