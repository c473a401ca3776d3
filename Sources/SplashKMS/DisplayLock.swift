import Glibc
import SplashSupport

/// The renderer's hold on the display, as a file lock others can wait for: the renderer takes it
/// before it opens the device and lets it go when it gives DRM master up (or the kernel does,
/// when the renderer dies). `splashd-kms wait`, which the hand-off unit runs, waits for it, so
/// an app ordered after that unit opens the device once no one is its master, and so becomes it.
public final class DisplayLock {
    /// Where the shipped unit keeps it: `RuntimeDirectory=splashd-kms`.
    public static let defaultPath = "/run/splashd-kms/display.lock"

    public let path: String
    private var fd: Int32

    /// Takes the lock at `path`. The file is made under another name, locked, then renamed into
    /// place: a waiter that finds it finds it locked. The other name is unpredictable
    /// (`PATH.PID-RANDOM`) and made new: no file is opened through a link or truncated, and one
    /// planted under a name drawn is passed over (issue 48, as `AtomicFile`).
    public init(path: String) throws(KMSError) {
        var temporary = ""
        var fd: Int32 = -1
        var random = NameRandom()
        for _ in 0..<16 {
            temporary = "\(path).\(getpid())-\(String(random.next(), radix: 16))"
            fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw KMSError("cannot make the display lock \(temporary)", errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw KMSError("cannot lock \(temporary)", errno: code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw KMSError("cannot put the display lock at \(path)", errno: code)
        }
        self.path = path
        self.fd = fd
    }

    deinit { release() }

    /// Lets the display go: the file is removed (a later waiter does not wait) and unlocked (the
    /// waiters there are go on).
    public func release() {
        guard fd >= 0 else { return }
        unlink(path)
        close(fd)
        fd = -1
    }

    /// Returns once no renderer holds the lock at `path`: at once when there is no such file
    /// (no renderer, or it has given the display up), else when its holder lets it go.
    /// Throws when `path` is there but not a regular file (a FIFO blocked `open` for ever): it
    /// is opened without blocking, and only a regular file is waited on.
    public static func waitUntilFree(_ path: String) throws(KMSError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw KMSError("\(path) is a symbolic link, not the renderer's lock file") }
            return
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw KMSError("\(path) is not a regular file: not the renderer's lock file")
        }
        while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
    }
}
