#if canImport(Glibc)
import Glibc
#endif
import SplashCore
import SplashJSON
import SplashPlugins
import SplashSupport

/// The cached remote config and its ETag, beside it in `<cache>.etag`.
///
/// Both files are replaced atomically. A store first removes the ETag file, then writes the
/// config, then the new ETag: a power cut in between leaves a config without an ETag (the next
/// launch fetches it whole), never a new config paired with an old ETag.
package struct ConfigFetchCache {
    /// A usable cached config.
    package struct Entry: Equatable {
        /// Its ETag, when the server sent one.
        var etag: String?
    }

    /// The largest file read back as a cache or defaults file.
    static let readLimit = 16 << 20

    let path: String

    package init(path: String) { self.path = path }
    var etagPath: String { "\(path).etag" }

    /// The cached config, if there is one holding a JSON object.
    ///
    /// A cache that is not JSON is reported as `.malformed` and not used (it is left in place).
    package func load() -> Result<Entry, ConfigFetchCache.Problem>? {
        guard let bytes = AtomicFile.read(path, limit: Self.readLimit) else {
            return access(path, F_OK) == 0 ? .failure(.unreadable(path)) : nil
        }
        guard Self.isJSONObject(bytes) else { return .failure(.malformed(path)) }
        let etag = AtomicFile.read(etagPath, limit: 8 * 1024).map { String(decoding: $0, as: UTF8.self) }
        return .success(Entry(etag: etag.flatMap { $0.isEmpty ? nil : $0 }))
    }

    /// Replaces the cache with `body` and its ETag; a missing parent directory is created.
    ///
    /// Throws `Problem.unwritable` naming the file and the errno.
    func store(_ body: [UInt8], etag: String?) throws(Problem) {
        if unlink(etagPath) != 0 && errno != ENOENT {
            throw .unwritable("cannot remove \(etagPath): \(SystemError.describe(errno))")
        }
        SessionStore.makeParentDirectory(of: path, mode: 0o755)
        do throws(AtomicFile.WriteError) {
            try AtomicFile.write(body, to: path, mode: 0o644)
            if let etag {
                try AtomicFile.write(Array(etag.utf8), to: etagPath, mode: 0o644)
            }
        } catch {
            throw .unwritable(Self.explain(error))
        }
    }

    /// A failed write, with the errno's name: the directory's when it refuses new files (EROFS,
    /// EACCES, EPERM for an immutable one), else the write's own reason.
    private static func explain(_ error: AtomicFile.WriteError) -> String {
        let slash = error.path.lastIndex(of: "/")
        let directory = slash.map { $0 == error.path.startIndex ? "/" : String(error.path[..<$0]) } ?? "."
        if access(directory, W_OK) != 0 {
            let code = errno
            return "cannot write \(error.path): \(directory) does not take new files: \(SystemError.describe(code))"
        }
        return error.description
    }

    /// Why an existing cache is not used, or cannot be replaced.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case malformed(String)
        case unwritable(String)

        package var description: String {
            switch self {
            case .unreadable(let path): "cannot read \(path)"
            case .malformed(let path): "\(path) does not hold a JSON object"
            case .unwritable(let reason): reason
            }
        }
    }

    /// Whether `bytes` are one JSON object (what a config must be).
    static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        guard let value = try? JSONReader.value(of: bytes) else { return false }
        return value.objectValue != nil
    }
}
