#if canImport(Glibc)
public import Glibc
#endif
import SystemPackage

/// Crash-safe file replacement: after a power cut the file holds either the old or the new
/// content, never a mix or nothing (and `append`, for formats that tolerate a torn tail).
///
/// `write` writes a temporary file in the same directory, fsyncs it, renames it over the target
/// and fsyncs the directory.
public enum AtomicFile {
    /// Why a write failed; the old file (if any) is untouched.
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Replaces `path` with `bytes`, created with permission `mode` (e.g. 0o600 for secrets).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(WriteError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory.isEmpty ? "/" : directory)/.\(name).tmp-\(getpid())"
        func failure(_ what: String) -> WriteError {
            WriteError(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure("open") }
        var ok = fchmod(fd, mode) == 0
        ok = ok && writeAll(bytes, to: fd)
        ok = ok && fsync(fd) == 0
        let error = failure(ok ? "close" : "write")
        if close(fd) != 0 { ok = false }
        guard ok else {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("rename")
            unlink(temporary)
            throw error
        }
        let dirFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }

    /// Appends `bytes` to the existing file at `path` and fsyncs it. Not atomic: a power cut
    /// may leave part of `bytes` at the end, so the format must let a reader skip a torn tail.
    public static func append(_ bytes: [UInt8], to path: String) throws(WriteError) {
        func failure(_ what: String) -> WriteError {
            WriteError(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw failure("open") }
        var ok = writeAll(bytes, to: fd)
        ok = ok && fsync(fd) == 0
        let error = failure(ok ? "close" : "write")
        if close(fd) != 0 { ok = false }
        guard ok else { throw error }
    }

    /// Writes all of `bytes` (swift-system retries short writes and EINTR); false, with errno
    /// set, on failure.
    private static func writeAll(_ bytes: [UInt8], to fd: CInt) -> Bool {
        do {
            _ = try FileDescriptor(rawValue: fd).writeAll(bytes)
            return true
        } catch {
            errno = (error as? Errno)?.rawValue ?? EIO
            return false
        }
    }

    /// The file's bytes, or nil when it does not exist or cannot be read.
    public static func read(_ path: String, limit: Int = 16 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while result.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
        return nil
    }
}
