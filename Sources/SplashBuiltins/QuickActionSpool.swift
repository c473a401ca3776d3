#if canImport(Glibc)
import Glibc
#endif
import Logging
import SplashPlugins

/// The spool directory of the `quick-action` step: one pending action name or URL per file.
///
/// Writers should create a file under a name starting with `.` and rename it into place: names
/// starting with `.` are skipped, so a half-written file is never taken. Other entries that are
/// not regular files (directories, symlinks) are left alone.
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
        guard let dir = opendir(directory) else {
            if errno != ENOENT {
                logger.warning("cannot read the quick-action spool directory: \(String(cString: strerror(errno)))", metadata: ["spool": "\(directory)"])
            }
            return ([], [])
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(dir)

        var entries: [Entry] = []
        var unremovable: [FileIdentity] = []
        for name in names {
            let path = "\(directory)/\(name)"
            guard let identity = Self.identity(of: path), !ignored.contains(identity) else { continue }
            let input = read(path, logger: logger)
            if unlink(path) != 0 && errno != ENOENT {
                logger.error(
                    "cannot remove quick-action spool file (\(String(cString: strerror(errno)))); it will not be taken again",
                    metadata: ["file": "\(path)"]
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

    /// The identity of the regular file at `path`; nil when it is gone or not a regular file.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileIdentity(
            path: path,
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modifiedSeconds: Int64(info.st_mtim.tv_sec),
            modifiedNanoseconds: Int64(info.st_mtim.tv_nsec)
        )
    }

    private func read(_ path: String, logger: Logger) -> QuickInput? {
        guard let bytes = AtomicFile.read(path, limit: Self.sizeLimit) else {
            logger.warning("quick-action spool file cannot be read or is over \(Self.sizeLimit) bytes; dropped", metadata: ["file": "\(path)"])
            return nil
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            logger.warning("quick-action spool file is not UTF-8 text; dropped", metadata: ["file": "\(path)"])
            return nil
        }
        guard let input = QuickInput(spoolText: text) else {
            logger.warning("quick-action spool file is empty; dropped", metadata: ["file": "\(path)"])
            return nil
        }
        return input
    }
}
