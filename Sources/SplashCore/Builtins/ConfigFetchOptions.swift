public import SplashJSON

/// The options of a `config-fetch` step, checked.
///
/// | option | type | default |
/// |---|---|---|
/// | `url` | an `http://`, `https://` or `file://` URL | none: the defaults |
/// | `cache` | path, relative to the state directory | `config.json` |
/// | `defaults` | path of a bundled JSON file | none |
/// | `max_bytes` | whole number ≥ 1 | 1 MiB |
/// | `request_timeout` | duration of the whole request | `"5s"` |
///
/// An empty string counts as not set.
public struct ConfigFetchOptions: BuiltinPluginOptions {
    public static let plugin = BuiltinPlugin.configFetch
    public static let knownOptions: Set<String> = ["url", "cache", "defaults", "max_bytes", "request_timeout"]
    /// The cache file used when `cache` is not set.
    public static let defaultCache = "config.json"
    /// The `max_bytes` default: 1 MiB.
    public static let defaultMaxBytes = 1 << 20

    /// The config's URL; its scheme is `http`, `https` or `file` (in any case).
    public var url: String?
    /// The cache file, absolute or relative to the state directory.
    public var cache: String
    /// The bundled defaults, absolute or relative to the state directory.
    public var defaults: String?
    /// `max_bytes`: the largest config accepted.
    public var maxBytes: Int
    /// `request_timeout`: the whole request.
    public var requestTimeout: Duration

    /// The options of a step that sets none.
    public init() {
        url = nil
        cache = Self.defaultCache
        defaults = nil
        maxBytes = Self.defaultMaxBytes
        requestTimeout = .seconds(5)
    }

    /// Checks a `config-fetch` step's raw options, throwing about the first bad one.
    public init(options: [String: JSONValue]) throws(OptionError) {
        let reader = try OptionReader(options, known: Self.knownOptions)
        self.init()
        let expectedURL = "an http://, https:// or file:// URL"
        url = try reader.string("url", expected: expectedURL)
        if let url, !["http://", "https://", "file://"].contains(where: url.lowercased().hasPrefix) {
            throw .option("url", "must be \(expectedURL), not \(OptionError.show(.string(url)))")
        }
        cache = try reader.string("cache", expected: "a path string") ?? Self.defaultCache
        defaults = try reader.string("defaults", expected: "a path string")
        maxBytes = try reader.integer("max_bytes", in: 1...Int.max, default: maxBytes, expected: "a positive whole number")
        requestTimeout = try reader.duration("request_timeout", default: requestTimeout)
    }
}
