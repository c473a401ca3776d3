import Foundation

/// A fresh directory under /tmp, removed on `remove()` or when the value goes. Paths stay short:
/// Unix socket paths are limited to 107 bytes.
///
/// Keep the value for as long as its files are used (a suite keeps it in a property): its path
/// alone does not keep the directory.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(prefix: String = "splashd-test") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let result = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = String(cString: result)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `path/name` and returns the full path.
    @discardableResult
    public func write(_ name: String, _ text: String, executable: Bool = false) throws -> String {
        let full = file(name)
        let directory = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try writeClosingOnExec(full, text, mode: executable ? 0o755 : 0o644)
    }

    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    public func read(_ name: String) -> String? { try? String(contentsOfFile: file(name), encoding: .utf8) }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    // Suites that keep their directories for the test's length never called `remove()`: every
    // run left about 150 directories in /tmp.
    deinit { remove() }
}
