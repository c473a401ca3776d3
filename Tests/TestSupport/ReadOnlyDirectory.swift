import Foundation

/// Makes a directory that nobody can create files in — not even root — for as long as it lives.
///
/// As root a mode of 0555 is no obstacle, so there the directory gets the immutable attribute
/// (`chattr +i`: EPERM for every process); otherwise its mode becomes 0555 (EACCES). `restore()`
/// undoes it, so the test can remove the directory.
public final class ReadOnlyDirectory: Sendable {
    /// The directory.
    public let path: String
    private let immutable: Bool

    /// Makes `path` (created when missing) read-only; nil when this system cannot (no `chattr`,
    /// or a file system without the attribute) — the caller skips its test then.
    public init?(_ path: String) {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.path = path
        if geteuid() == 0 {
            guard let result = try? ProcessRunner.run("/usr/bin/chattr", ["+i", path]), result.status == 0 else { return nil }
            immutable = true
        } else {
            guard chmod(path, 0o555) == 0 else { return nil }
            immutable = false
        }
    }

    /// Makes the directory writable again.
    public func restore() {
        if immutable {
            _ = try? ProcessRunner.run("/usr/bin/chattr", ["-i", path])
        } else {
            chmod(path, 0o755)
        }
    }
}
