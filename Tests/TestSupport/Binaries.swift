import Foundation

/// The built executables of this package, next to the running test bundle.
public enum Binaries {
    /// The build products directory (e.g. `.build/debug`).
    public static let directory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = (exe as NSString).deletingLastPathComponent
        // On Linux the test runner is `.build/debug/<Package>PackageTests.xctest`, a plain executable.
        if dir.hasSuffix(".xctest") { dir = (dir as NSString).deletingLastPathComponent }
        return dir
    }()

    public static var splashd: String { "\(directory)/splashd" }

    /// `splashctl` as the package installs it: a link named `splashctl` to `splashd`, which is
    /// splashctl when called by that name (in `multi-call/` beside the build's products; the
    /// build's own `splashctl` executable is the same code, for development).
    public static let splashctl: String = {
        let dir = "\(directory)/multi-call"
        let link = "\(dir)/splashctl"
        // Searchable by everyone: tests run it as `nobody` too (PrivilegeDrop). Foundation's own
        // mode is not to be relied on: in the arm64 suite's run (Swift 6.2.3) it was 0700.
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != "../splashd" {
            // Made under a name of this process's, then renamed over: test processes running at
            // once each see a whole link.
            let staged = "\(dir)/.splashctl.\(getpid())"
            try? FileManager.default.removeItem(atPath: staged)
            try? FileManager.default.createSymbolicLink(atPath: staged, withDestinationPath: "../splashd")
            rename(staged, link)
        }
        return link
    }()

    /// The package's root directory (for `plugins/`).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
