#if canImport(Glibc)
import Glibc
#endif
import SplashCore
import SplashJSON
import SplashPlugins
public import SplashSupport

/// The session file on disk: read, replaced atomically with mode 0600, removed.
///
/// Used by `auth-refresh` and by the daemon's `sign-in` / `sign-out` commands. Errors name the
/// file and what is wrong with it, never its content.
public struct SessionStore: Sendable {
    /// Why the session file could not be read.
    public enum ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file exists but could not be read (permissions, too large, I/O).
        case unreadable(path: String)
        /// The file is not JSON, not an object, or misses a field.
        case malformed(path: String, reason: String)

        public var description: String {
            switch self {
            case .unreadable(let path): "cannot read session file \(path)"
            case .malformed(let path, let reason): "malformed session file \(path): \(reason)"
            }
        }
    }

    /// Why the session file could not be removed.
    public struct RemoveError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot remove session file \(path): \(reason)" }
    }

    /// The largest session file read; a bigger one is `unreadable`.
    static let sizeLimit = 64 * 1024

    /// The session file's path.
    public let path: String

    public init(path: String) { self.path = path }

    /// The stored session, or nil when there is no session file.
    public func read() throws(ReadError) -> Session? {
        guard let bytes = AtomicFile.read(path, limit: Self.sizeLimit) else {
            if access(path, F_OK) != 0 && errno == ENOENT { return nil }
            throw .unreadable(path: path)
        }
        let value: JSONValue
        do {
            value = try JSONReader.value(of: bytes)
        } catch {
            // The decoder's message may quote the content; say only that it is not JSON.
            throw .malformed(path: path, reason: "not JSON")
        }
        guard let object = value.objectValue else { throw .malformed(path: path, reason: "not a JSON object") }
        do {
            return try Session(json: object)
        } catch {
            throw .malformed(path: path, reason: error.reason)
        }
    }

    /// Replaces the session file with `session` (crash-safe, mode 0600).
    ///
    /// A missing parent directory is created (mode 0700).
    public func write(_ session: Session) throws(AtomicFile.WriteError) {
        Self.makeParentDirectory(of: path, mode: 0o700)
        try AtomicFile.write(session.fileBytes, to: path, mode: 0o600)
    }

    /// Creates the directory that holds `path` when it is missing (one level; errors are left
    /// to the write that follows).
    static func makeParentDirectory(of path: String, mode: mode_t) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        if access(directory, F_OK) != 0 { mkdir(directory, mode) }
    }

    /// Removes the session file; no error when there is none.
    public func remove() throws(RemoveError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw RemoveError(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
