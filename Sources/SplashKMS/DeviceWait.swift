import Glibc

/// Waiting for a device node that is not there yet (`/dev/dri/card0` before the GPU's driver is
/// loaded, early in boot): inotify on the nearest existing parent directory, so the wait takes no
/// CPU and ends the moment the node appears (no polling with sleeps).
public enum DeviceWait {
    /// Returns once `path` exists (at once if it does). `onWait` is called once if it has to wait.
    public static func until(exists path: String, onWait: () -> Void = {}) throws(KMSError) {
        if access(path, F_OK) == 0 { return }
        onWait()
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw KMSError("cannot watch for \(path)", errno: errno) }
        defer { close(fd) }
        // A directory watched may be mounted over (the initramfs's /run moved onto the real
        // root's, after a renderer started there moved into it): the mount table's changes wake
        // the wait too, and the way is looked at again (poll's POLLPRI on mountinfo).
        let mounts = Glibc.open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        defer { if mounts >= 0 { close(mounts) } }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while access(path, F_OK) != 0 {
            // Watch the deepest directory on the way that exists: /dev, then /dev/dri once made.
            var directory = path
            repeat {
                directory = parent(of: directory)
            } while access(directory, F_OK) != 0 && directory != "/" && directory != "."
            let watch = inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB))
            guard watch >= 0 else { throw KMSError("cannot watch \(directory)", errno: errno) }
            // Checked again after the watch is in place: the node may have come meanwhile.
            if access(path, F_OK) == 0 { break }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)]
            if poll(&fds, 2, -1) < 0 && errno != EINTR { throw KMSError("cannot watch \(directory)", errno: errno) }
            if fds[0].revents != 0 {
                let count = read(fd, &buffer, buffer.count)
                if count < 0 && errno != EINTR && errno != EAGAIN { throw KMSError("cannot watch \(directory)", errno: errno) }
            }
            if fds[1].revents != 0 {
                // Read to the end: the next change is then told again.
                _ = lseek(mounts, 0, SEEK_SET)
                while read(mounts, &buffer, buffer.count) > 0 {}
            }
            _ = inotify_rm_watch(fd, watch)
        }
    }

    /// The directory `path` is in: `/` for `/x`, and the working directory (`.`) for a relative
    /// name with no slash (`--device card0` was watched on `/`, and never seen).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }

    /// Opens the DRM device at `path`, waiting for it to appear, and for its driver to finish
    /// registering it: devtmpfs makes the node a moment before the driver answers, and an open
    /// in between fails with ENODEV (seen in the VM). Such a failure is retried every 50 ms for
    /// at most 5 s; every other failure is thrown at once.
    public static func open(_ path: String, onWait: () -> Void = {}) throws(KMSError) -> DRMDevice {
        try until(exists: path, onWait: onWait)
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

