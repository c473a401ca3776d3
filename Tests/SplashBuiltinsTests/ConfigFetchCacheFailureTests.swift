import Foundation
import SplashBuiltins
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// A fetched config that cannot be cached is not a network failure: the failure says which file
/// and which errno, and a retry is not offered (it cannot help).
@Suite("config-fetch: a cache that cannot be written", .timeLimit(.minutes(10)))
struct ConfigFetchCacheFailureTests {
    typealias Fetch = ConfigFetchPluginTests

    /// Runs `body` with `<state>/readonly`, a directory no process may create files in.
    static func withReadOnlyDirectory(_ h: AuthTestHarness, prepare: (String) throws -> Void = { _ in }, _ body: (String) async throws -> Void) async throws {
        let directory = h.directory.file("readonly")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try prepare(directory)
        guard let readOnly = ReadOnlyDirectory(directory) else {
            print("skipped: cannot make \(directory) read-only here")
            return
        }
        defer { readOnly.restore() }
        try await body(directory)
    }

    @Test func withNeitherCacheNorDefaultsTheFailureNamesTheFileAndTheErrno() async throws {
        try await AuthTestHarness.with { h in
            try await Self.withReadOnlyDirectory(h) { directory in
                let cache = "\(directory)/config.json"
                h.server.enqueue(.json(200, Fetch.first))
                let failure = try #require(
                    await AuthTestHarness.stepFailure { try await Fetch.run(h, Fetch.options(h, ["cache": .string(cache)])) }
                )
                #expect(failure.code != .network)
                #expect(failure.code == ErrorCode(rawValue: "cache-unwritable"))
                #expect(!failure.retryable)
                #expect(!failure.message.contains("Unable to connect"))
                #expect(failure.message.contains(cache))
                let errnoName = geteuid() == 0 ? "EPERM" : "EACCES"
                #expect(failure.message.contains(errnoName), "\(failure.message)")
                #expect(h.log.records(.error, containing: cache).count == 1)
                #expect(!FileManager.default.fileExists(atPath: cache))
            }
        }
    }

    @Test func withDefaultsTheLaunchGoesOnWithThemAndIsNotCalledOffline() async throws {
        try await AuthTestHarness.with { h in
            let defaults = try h.directory.write("defaults.json", Fetch.second)
            try await Self.withReadOnlyDirectory(h) { directory in
                let cache = "\(directory)/config.json"
                h.server.enqueue(.json(200, Fetch.first))
                let facts = try await Fetch.run(h, Fetch.options(h, ["cache": .string(cache), "defaults": .string(defaults)]))
                #expect(facts == ["source": "defaults", "path": .string(defaults), "offline": false])
                #expect(h.log.records(.error, containing: cache).count == 1)
            }
        }
    }

    @Test func anOldCacheStaysAndIsUsed() async throws {
        try await AuthTestHarness.with { h in
            try await Self.withReadOnlyDirectory(h, prepare: { directory in
                try Fetch.first.write(toFile: "\(directory)/config.json", atomically: false, encoding: .utf8)
            }) { directory in
                let cache = "\(directory)/config.json"
                h.server.enqueue(.json(200, Fetch.second, headers: [("ETag", #""v2""#)]))
                let facts = try await Fetch.run(h, Fetch.options(h, ["cache": .string(cache)]))
                #expect(facts == ["source": "cache", "path": .string(cache), "offline": false])
                #expect(try String(contentsOfFile: cache, encoding: .utf8) == Fetch.first)
                #expect(h.log.records(.error, containing: cache).count == 1)
            }
        }
    }
}
