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
    public static var splashctl: String { "\(directory)/splashctl" }

    /// The package's root directory (for `plugins/`).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}
