#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SystemPackage

/// The file system operations every program of splashd needs, on POSIX calls: the one bounded
/// reader (configs, themes, state files, `/proc`), directory listings and path arithmetic.
public enum FileSystem {
    /// A failed operation, with the system's reason ("No such file or directory").
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var code: Int32
        public var reason: String

        init(code: Int32) {
            self.code = code
            self.reason = String(cString: strerror(code))
        }

        /// Whether the failure was "no such file or directory".
        public var isNotFound: Bool { code == ENOENT }

        public var description: String { reason }

        init(reason: String) {
            self.code = 0
            self.reason = reason
        }

        /// Whether there was more to read than the limit.
        public private(set) var isOverLimit = false

        /// More than `limit` bytes.
        static func tooLarge(_ limit: Int) -> Failure {
            var failure = Failure(reason: "larger than \(describe(bytes: limit)) (the limit)")
            failure.isOverLimit = true
            return failure
        }
    }

    /// Reads a whole regular file of at most `limit` bytes.
    ///
    /// Anything else is refused before it is read: a FIFO (opened without waiting for a writer),
    /// a device such as /dev/zero, a directory, a file larger than `limit` (or one that grows
    /// past it while it is read), and with `followLinks: false` a symbolic link (the last
    /// component of `path`; directories above it may still be links).
    public static func readFile(_ path: String, limit: Int, followLinks: Bool = true) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            let code = errno
            // O_NOFOLLOW refuses a link with ELOOP ("Too many levels of symbolic links"): say what it is.
            if !followLinks && code == ELOOP { throw Failure(reason: "a symbolic link, which is not followed") }
            throw Failure(code: code)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(code: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Failure(reason: "not a regular file") }
        guard info.st_size <= limit else { throw Failure.tooLarge(limit) }
        return try read(descriptor: descriptor, limit: limit, sizeHint: Int(info.st_size))
    }

    /// Reads what `descriptor` holds from its offset to its end, at most `limit` bytes: more is
    /// refused. The descriptor is left open. A regular file's size can lie (`/proc` says 0), so
    /// `sizeHint` only reserves room. swift-system retries a read interrupted by a signal (EINTR).
    public static func read(descriptor: Int32, limit: Int, sizeHint: Int = 0) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(max(sizeHint, 0), limit))
        var buffer = [UInt8](repeating: 0, count: min(64 * 1024, limit + 1))
        let file = FileDescriptor(rawValue: descriptor)
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
            } catch {
                throw Failure(code: (error as? Errno)?.rawValue ?? EIO)
            }
            if count == 0 { break }
            guard bytes.count + count <= limit else { throw Failure.tooLarge(limit) }
            bytes.append(contentsOf: buffer[..<count])
        }
        return bytes
    }

    /// `16 MiB`, `512 KiB`, `100 bytes`.
    public static func describe(bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// Whether anything exists at `path` (following symbolic links).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a regular file (following symbolic links).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` is a regular file this process may execute.
    public static func isExecutableFile(_ path: String) -> Bool {
        isRegularFile(path) && access(path, X_OK) == 0
    }

    /// The names in a directory, without `.` and `..`, sorted.
    public static func contentsOfDirectory(_ path: String) throws(Failure) -> [String] {
        guard let directory = opendir(path) else { throw Failure(code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The current working directory, if it can be determined.
    public static func currentDirectory() -> String? {
        guard let pointer = getcwd(nil, 0) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// `path` made absolute against `base` (or the working directory) and normalized lexically:
    /// empty and `.` components removed, `..` applied to the component before it.
    public static func absolute(_ path: String, relativeTo base: String? = nil) -> String {
        var full = path
        if !path.hasPrefix("/") {
            let directory = base ?? currentDirectory() ?? "/"
            full = absolute(directory) + "/" + path
        }
        var components: [Substring] = []
        for component in full.split(separator: "/") where component != "." {
            if component == ".." {
                _ = components.popLast()
            } else {
                components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
