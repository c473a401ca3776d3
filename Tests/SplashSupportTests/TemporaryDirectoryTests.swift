import Foundation
import Testing
import TestSupport

/// The tests' temporary directories: each one goes with its value, files and all (suites that
/// keep them for a test's length never called `remove()`, and every run left dozens in /tmp).
@Suite struct TemporaryDirectoryTests {
    @Test func theDirectoryGoesWithItsValue() throws {
        var directory: TemporaryDirectory? = try TemporaryDirectory()
        let path = try #require(directory?.path)
        try directory?.write("nested/file", "kept while the value lives")
        #expect(FileManager.default.fileExists(atPath: "\(path)/nested/file"))
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
