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
    /// The directory watched: its path, device and inode (a directory made again, or mounted
    /// over, is another one, watched anew).
    private var watched: (path: String, device: UInt64, inode: UInt64)?

    /// Watches for `path` (call `exists()` first: the watch is armed by it).
    public init(_ path: String) throws(KMSError) {
        self.path = path
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw KMSError("cannot watch for \(path)", errno: errno) }
        mounts = ProcDirectory.open("self/mountinfo")
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
        drain()
        if mounts >= 0 {
            // Read to the end: the next change is then told again.
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = lseek(mounts, 0, SEEK_SET)
            while read(mounts, &buffer, buffer.count) > 0 {}
        }
        if access(path, F_OK) == 0 { return true }
        // Watch the deepest directory on the way that exists: /dev, then /dev/dri once made.
        var directory = path
        repeat {
            directory = DeviceWait.parent(of: directory)
        } while access(directory, F_OK) != 0 && directory != "/" && directory != "."
        var info = stat()
        guard stat(directory, &info) == 0 else { throw KMSError("cannot watch \(directory)", errno: errno) }
        let found = (path: directory, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        // The same directory: its watch stays. (Armed anew, the old watch's removal would queue
        // IN_IGNORED on this descriptor, and the loop would wake at once, for ever.)
        if watch >= 0, let watched, watched == found { return access(path, F_OK) == 0 }
        let armed = inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB))
        guard armed >= 0 else { throw KMSError("cannot watch \(directory)", errno: errno) }
        if watch >= 0, watch != armed { _ = inotify_rm_watch(fd, watch) }
        watch = armed
        watched = found
        // The old watch's IN_IGNORED, and what the new one saw so far, drained: the path is
        // looked at again after that, so nothing that came before is missed.
        drain()
        return access(path, F_OK) == 0
    }

    /// Reads every event queued: each says only "look again", but IN_IGNORED for the watch in
    /// place says the kernel removed it (its directory went away): then it is armed anew.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return }
            var at = 0
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
            while at + 16 <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes {
                    ($0.loadUnaligned(fromByteOffset: at, as: Int32.self), $0.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self),
                     $0.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self))
                }
                if mask & UInt32(IN_IGNORED) != 0, wd == watch { watch = -1 }
                at += 16 + Int(length)
            }
        }
    }
}

/// `/proc`, as it was when the renderer started, for the files it reads there later.
///
/// The initramfs's renderer moves into the real root (SIGUSR1, from init-bottom) before
/// initramfs-tools moves `/proc` and `/run` there: in between, `/proc` is the real root's bare
/// directory. A `PathWatch` made then could not open `/proc/self/mountinfo` by its path; it
/// watched the real root's bare `/run`, which `/run` then covered, and nothing woke it: splashd's
/// socket was never seen and the app waited for the display for ever (1 boot in 3 in
/// `make bench-power-on`). Opened relative to this descriptor, the file is found whatever the
/// root: `Initramfs.prepare` opens it before the move is armed.
public enum ProcDirectory {
    /// `/proc`, opened at first use (a directory descriptor); -1 when there was none.
    public static let descriptor: Int32 = Glibc.open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)

    /// Opens `name` (relative to /proc, e.g. `self/mountinfo`) read-only; -1 on failure.
    public static func open(_ name: String) -> Int32 {
        if descriptor >= 0 { return openat(descriptor, name, O_RDONLY | O_CLOEXEC) }
        return Glibc.open("/proc/" + name, O_RDONLY | O_CLOEXEC)
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
