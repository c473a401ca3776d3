#if canImport(Glibc)
import Glibc
#endif
import Logging
import SplashPlugins
import SplashSupport

/// The spool directory of the `quick-action` step: one pending action name or URL per file.
///
/// Writers should create a file under a name starting with `.` and rename it into place: names
/// starting with `.` are skipped, so a half-written file is never taken.
///
/// The spool is a real directory: it is opened with `O_NOFOLLOW | O_DIRECTORY`, so a spool that
/// is a symlink is refused (logged as an error, nothing read, nothing removed). Inside it only
/// regular files are taken, opened and removed relative to the opened directory without following
/// links: a symlink in the spool is refused (logged, left in place, its target untouched);
/// directories are left alone. No file's content is logged beyond a short excerpt (which the log handlers escape).
struct QuickActionSpool: Sendable {
    /// A spool file, identified so that one that cannot be removed is not taken twice.
    struct FileIdentity: Sendable, Hashable {
        var path: String
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
    }

    /// One spool file that was read.
    struct Entry: Sendable, Equatable {
        var identity: FileIdentity
        /// Its trimmed content; nil when it was empty, too big, unreadable or not UTF-8.
        var input: QuickInput?
    }

    /// The largest spool file read; a bigger one is dropped as garbage.
    static let sizeLimit = 4096

    let directory: String

    /// Reads every spool file not in `ignored`, oldest first, and removes it.
    ///
    /// Returns the entries read and the files that could not be removed. A missing directory is
    /// no error; every other problem is logged and the rest is read.
    func take(ignoring ignored: Set<FileIdentity>, logger: Logger) -> (entries: [Entry], unremovable: [FileIdentity]) {
        guard let spool = open(logger: logger) else { return ([], []) }
        defer { close(spool) }
        var entries: [Entry] = []
        var unremovable: [FileIdentity] = []
        for name in Self.names(in: spool, logger: logger) {
            let path = "\(directory)/\(name)"
            var info = stat()
            guard fstatat(spool, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFDIR:
                continue
            default:
                let kind = info.st_mode & S_IFMT == S_IFLNK ? "a symlink" : "a special file"
                logger.warning(
                    "quick-action spool entry is not a regular file (\(kind)); refused and left in place",
                    metadata: ["file": "\(LogExcerpt.of(path, limit: 200))"]
                )
                continue
            }
            let identity = Self.identity(path: path, info)
            guard !ignored.contains(identity) else { continue }
            let input = read(name, in: spool, identity: identity, logger: logger)
            // The name itself goes: were it swapped for a link meanwhile, the link, never its target.
            if unlinkat(spool, name, 0) != 0 && errno != ENOENT {
                logger.error(
                    "cannot remove quick-action spool file (\(SystemError.describe(errno))); it will not be taken again",
                    metadata: ["file": "\(LogExcerpt.of(path, limit: 200))"]
                )
                unremovable.append(identity)
            }
            entries.append(Entry(identity: identity, input: input))
        }
        entries.sort { a, b in
            (a.identity.modifiedSeconds, a.identity.modifiedNanoseconds, a.identity.path)
                < (b.identity.modifiedSeconds, b.identity.modifiedNanoseconds, b.identity.path)
        }
        return (entries, unremovable)
    }

    /// The spool directory, opened without following a symlink; nil (logged unless it is
    /// missing) when it cannot be used.
    private func open(logger: Logger) -> Int32? {
        let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 { return fd }
        let code = errno
        var info = stat()
        if code == ENOENT, lstat(directory, &info) != 0 {
            return nil
        }
        if lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            logger.error(
                "the quick-action spool is a symlink: refused, nothing read or removed (the spool must be a real directory)",
                metadata: ["spool": "\(LogExcerpt.of(directory, limit: 200))"]
            )
        } else {
            logger.warning(
                "cannot read the quick-action spool directory: \(SystemError.describe(code))",
                metadata: ["spool": "\(LogExcerpt.of(directory, limit: 200))"]
            )
        }
        return nil
    }

    /// The names in the opened directory, without the ones starting with `.`.
    private static func names(in spool: Int32, logger: Logger) -> [String] {
        let copy = dup(spool)
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            logger.warning("cannot list the quick-action spool directory: \(SystemError.describe(errno))")
            return []
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }

    /// The identity of the regular file at `path` (in the spool); nil when it is gone or not a
    /// regular file. Does not follow a symlink.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return identity(path: path, info)
    }

    private static func identity(path: String, _ info: stat) -> FileIdentity {
        FileIdentity(
            path: path,
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modifiedSeconds: Int64(info.st_mtim.tv_sec),
            modifiedNanoseconds: Int64(info.st_mtim.tv_nsec)
        )
    }

    /// Reads spool file `name` without following a link, if it is still the file `identity` names.
    private func read(_ name: String, in spool: Int32, identity: FileIdentity, logger: Logger) -> QuickInput? {
        let metadata: Logger.Metadata = ["file": "\(LogExcerpt.of(identity.path, limit: 200))"]
        let fd = openat(spool, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            logger.warning("quick-action spool file cannot be read (\(SystemError.describe(errno))); dropped", metadata: metadata)
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_ino) == identity.inode else {
            logger.warning("quick-action spool file changed while it was read; dropped", metadata: metadata)
            return nil
        }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(descriptor: fd, limit: Self.sizeLimit, sizeHint: Int(info.st_size))
        } catch {
            let reason = error.isOverLimit ? "is over \(Self.sizeLimit) bytes" : "cannot be read (\(SystemError.describe(error.code)))"
            logger.warning("quick-action spool file \(reason); dropped", metadata: metadata)
            return nil
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            logger.warning("quick-action spool file is not UTF-8 text; dropped", metadata: metadata)
            return nil
        }
        guard let input = QuickInput(spoolText: text) else {
            logger.warning("quick-action spool file is empty; dropped", metadata: metadata)
            return nil
        }
        return input
    }
}
