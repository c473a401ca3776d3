#if canImport(Glibc)
public import Glibc
#endif
import SystemPackage

/// Crash-safe file replacement: after a power cut the file holds either the old or the new
/// content, never a mix or nothing (and `append`, for formats that tolerate a torn tail).
///
/// `write` writes a temporary file in the same directory, fsyncs it, renames it over the target
/// and fsyncs the directory. The temporary is `.NAME.tmp-PID-RANDOM` (RANDOM: 16 hex digits from
/// the kernel's random numbers, `NameRandom`, which never waits for them), made new
/// (`O_CREAT|O_EXCL|O_NOFOLLOW`): whoever else can write the directory cannot plant the temporary
/// ahead of the write, as a link or as a file of their own that the rename would put in place
/// (issue 48, item 6). One left by a crash is removed at the next start
/// (`removeStaleTemporaries(in:)`).
public enum AtomicFile {
    /// Why a write failed; the old file (if any) is untouched.
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Names tried for the temporary before a write gives up: another name is taken only when
    /// something already has this one (EEXIST), which by chance is all but impossible.
    static let temporaryAttempts = 16

    /// Replaces `path` with `bytes`, created with permission `mode` (e.g. 0o600 for secrets).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(WriteError) {
        var random = NameRandom()
        try write(bytes, to: path, mode: mode, names: &random)
    }

    /// `write`, with the temporary's random part drawn from `names` (the tests choose it).
    static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t, names: inout some RandomNumberGenerator
    ) throws(WriteError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        func failure(_ what: String) -> WriteError {
            WriteError(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
        }
        var temporary = ""
        var fd: CInt = -1
        for _ in 0..<temporaryAttempts {
            temporary = "\(directory.isEmpty ? "/" : directory)/\(temporaryName(for: name, pid: getpid(), random: names.next()))"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
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

    /// The name of a temporary `write` uses for the file `name` in process `pid`:
    /// `.NAME.tmp-PID-RANDOM`, RANDOM as 16 hex digits.
    static func temporaryName(for name: String, pid: pid_t, random: UInt64) -> String {
        let hex = String(random, radix: 16)
        return ".\(name).tmp-\(pid)-\(String(repeating: "0", count: 16 - hex.count))\(hex)"
    }

    /// The file and the process id of a temporary's name: `.NAME.tmp-PID-RANDOM`, or
    /// `.NAME.tmp-PID` as builds before issue 48 named them; nil for any other name.
    static func temporaryOwner(_ name: String) -> (name: String, pid: pid_t)? {
        var bytes = Array(name.utf8)[...]
        // The random part, when there is one: a dash and 16 hex digits.
        if bytes.count > 17, bytes[bytes.endIndex - 17] == UInt8(ascii: "-"),
            bytes.suffix(16).allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        {
            bytes = bytes.dropLast(17)
        }
        guard bytes.first == UInt8(ascii: "."), let dash = bytes.lastIndex(of: UInt8(ascii: "-")),
            dash - bytes.startIndex >= 6, bytes[(dash - 4)...dash].elementsEqual(".tmp-".utf8)
        else { return nil }
        let digits = bytes[(dash + 1)...]
        guard (1...10).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
            let pid = pid_t(String(decoding: digits, as: UTF8.self))
        else { return nil }
        return (String(decoding: bytes[(bytes.startIndex + 1)..<(dash - 4)], as: UTF8.self), pid)
    }

    /// Removes the temporaries of `write` left in `directory` by processes that crashed (or
    /// lost power) between writing and renaming them; returns the names removed.
    ///
    /// Call it before this process writes there. A temporary is kept only while its process
    /// may still rename it: a live process other than this one running `program` (by default
    /// this process's executable). Only regular files named `.NAME.tmp-PID-RANDOM` (or
    /// `.NAME.tmp-PID`, from earlier builds) are touched, not symbolic links or directories;
    /// `names`, when given, limits it to the temporaries of those files (for a directory shared
    /// with others).
    @discardableResult
    public static func removeStaleTemporaries(
        in directory: String, names: Set<String>? = nil, program: String? = nil
    ) -> [String] {
        let program = program ?? executable("/proc/self/exe")
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var removed: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let owner = temporaryOwner(name) else { continue }
            if let names, !names.contains(owner.name) { continue }
            if owner.pid != getpid() && mayStillWrite(owner.pid, program: program) { continue }
            let path = "\(directory)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed.sorted()
    }

    /// Whether process `pid` is alive and runs `program` (when `program` is unknown: alive).
    private static func mayStillWrite(_ pid: pid_t, program: String?) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let program else { return true }
        return executable("/proc/\(pid)/exe") == program
    }

    private static func executable(_ link: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

    /// The file's bytes, or nil when it does not exist or cannot be read: `FileSystem.readFile`
    /// without the reason (a FIFO, a directory or a file over `limit` is not read).
    public static func read(_ path: String, limit: Int = 16 << 20) -> [UInt8]? {
        try? FileSystem.readFile(path, limit: limit)
    }
}
