import Glibc

/// Waiting for a device node or a socket that is not there yet (`/dev/dri/card0` before the GPU's
/// driver is loaded, splashd's socket before it started): inotify on the nearest existing parent
/// directory, so the wait takes no CPU and ends the moment the path appears (no polling with
/// sleeps). A `PathWatch` is polled by the renderer's one loop, beside its other descriptors.
public final class PathWatch {
    public let path: String
    private let fd: Int32
    /// The mount table: a directory watched may be mounted over (the initramfs's /run moved onto
    /// the real root's, after a renderer started there moved into it): its changes (POLLPRI) wake
    /// the wait too, and the way is looked at again.
    private let mounts: Int32
    private var watch: Int32 = -1

    /// Watches for `path` (call `exists()` first: the watch is armed by it).
    public init(_ path: String) throws(KMSError) {
        self.path = path
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw KMSError("cannot watch for \(path)", errno: errno) }
        mounts = Glibc.open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        close(fd)
        if mounts >= 0 { close(mounts) }
    }

    /// The descriptors to poll: (inotify's, POLLIN), (the mount table's, POLLPRI).
    public var descriptors: [(fd: Int32, events: Int16)] {
        [(fd, Int16(POLLIN)), (mounts, Int16(POLLPRI))]
    }

    /// Whether the path exists now; when not, the deepest directory on its way that exists is
    /// watched (its events and the mount table's are drained first). Never waits.
    public func exists() throws(KMSError) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
        if mounts >= 0 {
            // Read to the end: the next change is then told again.
            _ = lseek(mounts, 0, SEEK_SET)
            while read(mounts, &buffer, buffer.count) > 0 {}
        }
        if access(path, F_OK) == 0 { return true }
        if watch >= 0 { _ = inotify_rm_watch(fd, watch) }
        // Watch the deepest directory on the way that exists: /dev, then /dev/dri once made.
        var directory = path
        repeat {
            directory = DeviceWait.parent(of: directory)
        } while access(directory, F_OK) != 0 && directory != "/" && directory != "."
        watch = inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB))
        guard watch >= 0 else { throw KMSError("cannot watch \(directory)", errno: errno) }
        // Looked at again after the watch is in place: the path may have come meanwhile.
        return access(path, F_OK) == 0
    }
}

/// Opening a DRM device that has just appeared.
public enum DeviceWait {
    /// The directory `path` is in: `/` for `/x`, and the working directory (`.`) for a relative
    /// name with no slash (`--device card0` was watched on `/`, and never seen).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }

    /// Opens the DRM device at `path` (which exists), waiting for its driver to finish
    /// registering it: devtmpfs makes the node a moment before the driver answers, and an open
    /// in between fails with ENODEV (seen in the VM). Such a failure is retried every 50 ms for
    /// at most 5 s; every other failure is thrown at once.
    public static func open(_ path: String) throws(KMSError) -> DRMDevice {
        var tries = 0
        while true {
            do {
                return try DRMDevice(path: path)
            } catch let error where [ENODEV, ENXIO, ENOENT].contains(error.code ?? 0) && tries < 100 {
                tries += 1
                var none = pollfd(fd: -1, events: 0, revents: 0)
                _ = poll(&none, 0, 50)
            }
        }
    }
}
