public import SplashCore
import SplashSupport

/// The plugins steps may use: the built-ins plus external plugins described by manifests.
///
/// A manifest is a file `NAME.toml` in a plugin directory; it makes plugin `NAME` available:
///
/// ```toml
/// exec = "bin/wifi-wait"        # required; relative to the manifest's directory unless absolute
/// description = "Waits for Wi-Fi"
/// timeout = "20s"               # default per-attempt timeout of steps using it
/// ```
public struct PluginCatalog: Sendable, Equatable {
    /// External plugins by name.
    public var manifests: [String: PluginManifest]
    /// Manifests that were skipped, and unreadable directories. They do not stop the daemon.
    public var problems: [ConfigError]

    /// The directories the daemon scans before any `--plugin-dir`, in order.
    public static let standardDirectories = ["/usr/lib/splashd/plugins", "/etc/splashd/plugins.d"]

    static let manifestKeys: Set<String> = ["exec", "description", "timeout"]

    /// The largest manifest read, 1 MiB: anything larger (or not a regular file) is reported
    /// and left out without being read.
    public static let maximumManifestSize = 1 << 20

    /// Creates a catalog from known manifests (tests, or a catalog built by hand).
    public init(manifests: [String: PluginManifest] = [:], problems: [ConfigError] = []) {
        self.manifests = manifests
        self.problems = problems
    }

    /// Whether steps may use `plugin`: a built-in or a manifest's name.
    public func isKnown(_ plugin: String) -> Bool {
        BuiltinPlugin.names.contains(plugin) || manifests[plugin] != nil
    }

    /// Reads the `*.toml` manifests of `directories`, in order.
    ///
    /// A manifest in a later directory replaces one with the same name from an earlier directory.
    /// Missing directories are skipped. A manifest that cannot be read or parsed, has unknown keys
    /// or wrong types, or whose `exec` is not an executable file is left out and reported in
    /// `problems`; an earlier good manifest of the same name then stays in effect. Hidden files
    /// (`.NAME.toml`) and anything that is not a regular file are ignored.
    public static func scan(directories: [String]) -> PluginCatalog {
        var catalog = PluginCatalog()
        for directory in directories {
            let names: [String]
            do {
                names = try FileSystem.contentsOfDirectory(directory)
            } catch {
                if !error.isNotFound {
                    catalog.problems.append(
                        ConfigError(file: directory, message: "cannot read plugin directory: \(error.reason)")
                    )
                }
                continue
            }
            for fileName in names where fileName.hasSuffix(".toml") && !fileName.hasPrefix(".") {
                let name = String(fileName.dropLast(".toml".count))
                let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
                guard !name.isEmpty, FileSystem.isRegularFile(path) else { continue }
                do {
                    catalog.manifests[name] = try loadManifest(path: path, name: name)
                } catch {
                    catalog.problems.append(error)
                }
            }
        }
        return catalog
    }

    /// Reads and parses the manifest file `path`, checking that its executable can be run.
    static func loadManifest(path: String, name: String) throws(ConfigError) -> PluginManifest {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: maximumManifestSize)
        } catch {
            throw ConfigError(file: path, message: "cannot read plugin manifest: \(error.reason)")
        }
        return try parseManifest(
            TableReader.parse(bytes: bytes, file: path), name: name, path: path, isExecutable: FileSystem.isExecutableFile
        )
    }

    /// Parses the text of manifest `path` for plugin `name`, without looking at the file system.
    ///
    /// A relative `exec` is resolved against the directory of `path` (made absolute against the
    /// working directory if `path` is relative).
    public static func parseManifest(_ text: String, name: String, path: String) throws(ConfigError) -> PluginManifest {
        try parseManifest(TableReader.parse(text, file: path), name: name, path: path, isExecutable: nil)
    }

    static func parseManifest(
        _ reader: TableReader, name: String, path: String, isExecutable: ((String) -> Bool)?
    ) throws(ConfigError) -> PluginManifest {
        try reader.checkKeys(manifestKeys)
        guard let exec = try reader.string("exec") else {
            throw reader.error(at: nil, "missing required key \"exec\"")
        }
        guard !exec.isEmpty else { throw reader.error(at: "exec", "exec must not be empty") }
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let executable = FileSystem.absolute(exec, relativeTo: directory.isEmpty ? "/" : directory)
        if let isExecutable, !isExecutable(executable) {
            throw reader.error(at: "exec", "exec \"\(executable)\" is not an executable file")
        }
        let timeout = try reader.duration("timeout")
        if let timeout, timeout <= .zero {
            throw reader.error(at: "timeout", "timeout must be greater than zero")
        }
        return PluginManifest(
            name: name, executable: executable, description: try reader.string("description"),
            timeout: timeout, manifestPath: path
        )
    }
}
