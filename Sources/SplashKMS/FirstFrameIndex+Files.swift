import Glibc
public import SplashScene

extension FirstFrameIndex.Source {
    /// The theme file at `path` as it is now (its size and modification time, as the helper
    /// compares them); nil when it cannot be stat'ed.
    public init?(stating path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(path: path, size: UInt64(info.st_size),
                  modified: UInt64(info.st_mtim.tv_sec) * 1_000_000_000 + UInt64(info.st_mtim.tv_nsec))
    }
}
