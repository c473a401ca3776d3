#if canImport(Glibc)
import Glibc
#endif
import Logging
import SplashCore
public import SplashJSON
public import SplashPlugins
import SplashSupport

/// The `config-fetch` built-in: the app's remote config, fetched, cached, or from bundled defaults.
///
/// Options: `ConfigFetchOptions`, read from the step's parsed options: `url` (`http://`,
/// `https://` or `file:///path`), `cache` (default `config.json` in the state directory; its ETag
/// is kept in `<cache>.etag`), `defaults` (a bundled JSON file; optional), `max_bytes` (default
/// 1 MiB), `request_timeout` (default `"5s"`). Relative paths are resolved in the state directory.
///
/// A config must be a JSON object. GET `url` with `If-None-Match` from the cached ETag:
/// - 200 with a JSON object of at most `max_bytes` → stored atomically with its ETag: `source: "network"`;
/// - 304 → `source: "cache"`;
/// - anything else — no connection, timeout, another status, a reply that is not a JSON object
///   or passes `max_bytes` (read as it streams in, never buffered past the limit) — is logged
///   as an error and the old cache stays untouched: the cache (`offline: true`), else the
///   defaults (`offline: true`), else `StepFailure.network` (retryable).
///
/// A fetched config that cannot be stored in the cache (a read-only or full file system, wrong
/// permissions) is not a network failure, and a retry cannot help: it is logged as an error
/// naming the file and the errno, and the launch goes on with the old cache, else the defaults
/// (`offline: false` either way: the network worked), else fails for good with code
/// `cache-unwritable`.
///
/// A `file://` URL is read the same way (no ETag) and stored in the cache. Without `url`: the
/// defaults, or when there are none `source: "none"` with no `path` — so a fresh device with no
/// remote endpoints launches.
///
/// Facts: `source` (`network`, `cache`, `defaults`, `none`), `path` (the file the app should
/// read), `etag` (when known), `offline`.
public struct ConfigFetchPlugin: StepPlugin {
    let device: DeviceState
    let http: SharedHTTPClient
    /// The clock `request_timeout` passes on.
    let clock: any Clock<Duration>

    /// Creates the plugin for the device's state directory, sending requests with `http`'s
    /// client (created at the first request), each limited by `request_timeout` on `clock`.
    public init(device: DeviceState, http: SharedHTTPClient, clock: any Clock<Duration> = ContinuousClock()) {
        self.device = device
        self.http = http
        self.clock = clock
    }

    /// Fetches the config; see the type's description.
    public func run(_ context: StepContext) async throws -> Facts {
        let options = try context.run.step.builtinOptions(ConfigFetchOptions.self)
        let cache = ConfigFetchCache(path: device.resolve(options.cache))
        var attempt = Attempt(
            cache: cache, defaults: options.defaults.map(device.resolve), maxBytes: options.maxBytes, logger: context.logger
        )

        guard let url = options.url else {
            return try attempt.fallBack(offline: false, reason: "no url")
        }
        // The options allow only http, https and file URLs.
        if url.lowercased().hasPrefix("file://") {
            return try attempt.readFile(url: url)
        }
        context.report(.message("Loading configuration"))
        let fetch = HTTPFetch(client: http.client, timeout: options.requestTimeout, maxBytes: options.maxBytes, clock: clock)
        return try await attempt.fetch(url: url, with: fetch)
    }

    /// One run's decisions, with the cache looked at once.
    private struct Attempt {
        let cache: ConfigFetchCache
        let defaults: String?
        let maxBytes: Int
        let logger: Logger
        /// The usable cache, looked up on first need.
        private var cached: ConfigFetchCache.Entry??

        init(cache: ConfigFetchCache, defaults: String?, maxBytes: Int, logger: Logger) {
            self.cache = cache
            self.defaults = defaults
            self.maxBytes = maxBytes
            self.logger = logger
        }

        mutating func usableCache() -> ConfigFetchCache.Entry? {
            if let cached { return cached }
            var entry: ConfigFetchCache.Entry?
            switch cache.load() {
            case .success(let found)?: entry = found
            case .failure(let problem)?: logger.error("cached config not used: \(problem)")
            case nil: entry = nil
            }
            cached = .some(entry)
            return entry
        }

        /// GET `url`, conditional on the cached ETag.
        mutating func fetch(url: String, with fetch: HTTPFetch) async throws -> Facts {
            var headers: [(String, String)] = [("Accept", "application/json")]
            if let etag = usableCache()?.etag { headers.append(("If-None-Match", etag)) }
            let reply: HTTPFetch.Reply
            do {
                reply = try await fetch.perform(.get, url: url, headers: headers)
            } catch let failure as HTTPFetch.Failure {
                return try fallBack(offline: true, reason: "\(url): \(failure)")
            }
            switch reply.status {
            case 200:
                return try accept(reply.body, etag: reply.header("ETag"), from: url)
            case 304 where usableCache() != nil:
                logger.info("config not modified since the cached copy")
                return facts(source: "cache", path: cache.path, etag: usableCache()?.etag)
            default:
                return try fallBack(offline: true, reason: "\(url) answered \(reply.status)")
            }
        }

        /// Reads a `file://` URL as if it were fetched.
        mutating func readFile(url: String) throws -> Facts {
            let path = Self.percentDecoded(String(url.dropFirst("file://".count)))
            guard path.hasPrefix("/") else {
                return try fallBack(offline: true, reason: "\(url): not an absolute file URL")
            }
            guard let bytes = AtomicFile.read(path, limit: maxBytes) else {
                let why = access(path, F_OK) == 0 ? "unreadable or larger than \(maxBytes) bytes" : "no such file"
                return try fallBack(offline: true, reason: "\(url): \(why)")
            }
            return try accept(bytes, etag: nil, from: url)
        }

        /// Stores a fetched config when it is a JSON object; else handles it like a network failure.
        mutating func accept(_ body: [UInt8], etag: String?, from url: String) throws -> Facts {
            guard ConfigFetchCache.isJSONObject(body) else {
                return try fallBack(offline: true, reason: "\(url): the reply is not a JSON object")
            }
            do {
                try cache.store(body, etag: etag)
            } catch {
                return try withoutCaching(reason: "config fetched from \(url) but not stored: \(error)")
            }
            logger.info("config fetched from \(url) (\(body.count) bytes)")
            return facts(source: "network", path: cache.path, etag: etag)
        }

        /// A fetched config that cannot be stored: the old cache, else the defaults, else a failure
        /// for good (`cache-unwritable`); never called offline.
        mutating func withoutCaching(reason: String) throws -> Facts {
            logger.error("\(reason)")
            if let entry = usableCache() {
                logger.warning("using the cached config \(cache.path), which is older than the fetched one")
                return facts(source: "cache", path: cache.path, etag: entry.etag)
            }
            if let defaults = usableDefaults() {
                logger.warning("using the default config \(defaults) instead of the fetched one")
                return facts(source: "defaults", path: defaults)
            }
            throw StepFailure(code: .cacheUnwritable, message: reason, retryable: false)
        }

        /// The defaults file when it holds a JSON object; problems are logged.
        func usableDefaults() -> String? {
            guard let defaults else { return nil }
            switch AtomicFile.read(defaults, limit: ConfigFetchCache.readLimit) {
            case let bytes? where ConfigFetchCache.isJSONObject(bytes): return defaults
            case _?: logger.error("default config not used: \(defaults) does not hold a JSON object")
            case nil: logger.error("default config not used: cannot read \(defaults)")
            }
            return nil
        }

        /// The cache, else the defaults, else a network failure (or `source: "none"` without a URL).
        mutating func fallBack(offline: Bool, reason: String) throws -> Facts {
            if offline { logger.error("config not fetched: \(reason)") }
            if offline, let entry = usableCache() {
                logger.warning("using the cached config \(cache.path)")
                return facts(source: "cache", path: cache.path, etag: entry.etag, offline: true)
            }
            if let defaults = usableDefaults() {
                logger.notice("using the default config \(defaults)")
                return facts(source: "defaults", path: defaults, offline: offline)
            }
            guard offline else {
                logger.notice("no config url and no defaults: the app uses its built-in config")
                return facts(source: "none", path: nil)
            }
            throw StepFailure.network(reason)
        }

        func facts(source: String, path: String?, etag: String? = nil, offline: Bool = false) -> Facts {
            var facts: Facts = ["source": .string(source), "offline": .bool(offline)]
            if let path { facts["path"] = .string(path) }
            if let etag { facts["etag"] = .string(etag) }
            return facts
        }

        /// `%XX` sequences of a URL path decoded (invalid ones kept as they are).
        static func percentDecoded(_ text: String) -> String {
            var out: [UInt8] = []
            var bytes = Array(text.utf8)[...]
            while let byte = bytes.popFirst() {
                if byte == UInt8(ascii: "%"), bytes.count >= 2,
                    let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
                {
                    out.append(value)
                    bytes = bytes.dropFirst(2)
                } else {
                    out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
