import AsyncHTTPClient
import TestSupport
import Foundation
import SplashBuiltins
import SplashCore
import SplashJSON
import Testing

@Suite("config-fetch", .timeLimit(.minutes(10)))
struct ConfigFetchPluginTests {
    static let first = #"{"theme": "dark", "version": 1}"#
    static let second = #"{"theme": "light", "version": 2}"#

    static func run(_ h: AuthTestHarness, _ options: [String: JSONValue]) async throws -> Facts {
        try await ConfigFetchPlugin(device: h.device, http: h.http).run(h.context("config-fetch", options: options))
    }

    /// The step's options: the harness's URL, and a `request_timeout` no honest reply can miss
    /// however slow the machine is (a test of the timeout names its own, or runs on a test clock).
    static func options(_ h: AuthTestHarness, _ extra: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var options: [String: JSONValue] = ["url": .string(h.server.url("/config.json")), "request_timeout": "10m"]
        options.merge(extra) { _, new in new }
        return options
    }

    /// Fetches `first` with ETag "v1" into the cache.
    static func primeCache(_ h: AuthTestHarness, _ extra: [String: JSONValue] = [:]) async throws {
        h.server.enqueue(.json(200, first, headers: [("ETag", #""v1""#)]))
        let facts = try await run(h, options(h, extra))
        #expect(facts["source"] == "network")
        #expect(h.directory.read("config.json") == first)
    }

    @Test func fetchesThenRevalidatesThenFallsBackToTheCacheOffline() async throws {
        try await AuthTestHarness.with { h in
            h.server.enqueue(.json(200, Self.first, headers: [("ETag", #""v1""#)]))
            let fetched = try await Self.run(h, Self.options(h))
            let cache = h.directory.file("config.json")
            #expect(fetched == ["source": "network", "path": .string(cache), "etag": #""v1""#, "offline": false])
            #expect(h.directory.read("config.json") == Self.first)
            #expect(h.server.requests.first?.method == "GET")
            #expect(h.server.requests.first?.header("If-None-Match") == nil)

            h.server.enqueue(.status(304, headers: [("ETag", #""v1""#)]))
            let revalidated = try await Self.run(h, Self.options(h))
            #expect(revalidated == ["source": "cache", "path": .string(cache), "etag": #""v1""#, "offline": false])
            #expect(h.server.requests.last?.header("If-None-Match") == #""v1""#)

            try await h.server.stop()
            let offline = try await Self.run(h, Self.options(h, ["request_timeout": "1s"]))
            #expect(offline == ["source": "cache", "path": .string(cache), "etag": #""v1""#, "offline": true])
            #expect(h.directory.read("config.json") == Self.first)
            #expect(h.records(atLeast: .error).count == 1)
        }
    }

    @Test func aNewVersionReplacesTheCacheAndItsETag() async throws {
        try await AuthTestHarness.with { h in
            try await Self.primeCache(h)
            h.server.enqueue(.json(200, Self.second, headers: [("ETag", #""v2""#)]))
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts["etag"] == #""v2""#)
            #expect(h.directory.read("config.json") == Self.second)
            #expect(h.directory.read("config.json.etag") == #""v2""#)

            // A reply without an ETag leaves none behind: the next request is unconditional.
            h.server.enqueue(.json(200, Self.first))
            let plain = try await Self.run(h, Self.options(h))
            #expect(plain["etag"] == nil, "\(h.records(atLeast: .warning).map(\.message))")
            #expect(!h.directory.exists("config.json.etag"))
            h.server.enqueue(.json(200, Self.first))
            #expect(try await Self.run(h, Self.options(h))["source"] == "network")
            #expect(h.server.requests.count == 4)
            #expect(h.server.requests.last?.header("If-None-Match") == nil)
        }
    }

    @Test(arguments: [
        TestHTTPServer.Response.json(200, "<html>captive portal</html>"),
        .json(200, "[1, 2, 3]"),
        .json(200, ""),
        .status(404),
        .status(503),
        .close,
    ])
    func unusableRepliesKeepTheOldCache(reply: TestHTTPServer.Response) async throws {
        try await AuthTestHarness.with { h in
            try await Self.primeCache(h)
            let before = try Data(contentsOf: URL(fileURLWithPath: h.directory.file("config.json")))
            h.server.enqueue(reply)
            let facts = try await Self.run(h, Self.options(h))
            #expect(facts["source"] == "cache")
            #expect(facts["offline"] == true)
            #expect(facts["etag"] == #""v1""#)
            #expect(try Data(contentsOf: URL(fileURLWithPath: h.directory.file("config.json"))) == before)
            #expect(h.directory.read("config.json.etag") == #""v1""#)
            #expect(h.records(atLeast: .error).count == 1)
        }
    }

    @Test(arguments: [nil, 7, 1000])
    func oversizedRepliesAreRejected(chunkSize: Int?) async throws {
        try await AuthTestHarness.with { h in
            let limit: [String: JSONValue] = ["max_bytes": .number(Double(Self.first.utf8.count + 10))]
            try await Self.primeCache(h, limit)
            let before = h.directory.read("config.json")

            // Valid JSON, one byte over the limit; then a large body.
            let oneOver = #"{"pad": "\#(String(repeating: "x", count: Self.first.utf8.count))"}"#
            for body in [oneOver, #"{"pad": "\#(String(repeating: "y", count: 200_000))"}"#] {
                h.server.enqueue(TestHTTPServer.Response(status: 200, body: Array(body.utf8), chunkSize: chunkSize))
                let facts = try await Self.run(h, Self.options(h, limit))
                #expect(facts["source"] == "cache")
                #expect(facts["offline"] == true)
                let kept = h.directory.read("config.json") == before
                #expect(kept, "the old cache is kept")
            }
            let errors = h.records(atLeast: .error)
            #expect(errors.count == 2)
            #expect(errors.allSatisfy { $0.message.contains("larger than") })

            // Exactly the limit is accepted.
            let exact = #"{"a": "\#(String(repeating: "z", count: Self.first.utf8.count + 10 - 9))"}"#
            #expect(exact.utf8.count == Self.first.utf8.count + 10)
            h.server.enqueue(TestHTTPServer.Response(status: 200, body: Array(exact.utf8), chunkSize: chunkSize))
            let facts = try await Self.run(h, Self.options(h, limit))
            #expect(facts["source"] == "network", "\(h.records(atLeast: .warning).map(\.message))")
            #expect(h.directory.read("config.json") == exact)
        }
    }

    @Test func defaultsWhenTheServerIsDownAndThereIsNoCache() async throws {
        try await AuthTestHarness.with { h in
            let defaults = try h.directory.write("bundle/defaults.json", Self.second)
            try await h.server.stop()
            let facts = try await Self.run(h, Self.options(h, ["defaults": .string(defaults), "request_timeout": "1s"]))
            #expect(facts == ["source": "defaults", "path": .string(defaults), "offline": true])
            #expect(!h.directory.exists("config.json"))
        }
    }

    @Test func failsRetryablyWithNeitherCacheNorDefaults() async throws {
        try await AuthTestHarness.with { h in
            try await h.server.stop()
            let quick: [String: JSONValue] = ["request_timeout": "1s"]
            let failure = try #require(await AuthTestHarness.stepFailure { try await Self.run(h, Self.options(h, quick)) })
            #expect(failure.code == .network)
            #expect(failure.retryable)

            // A defaults file that is not JSON does not count.
            let broken = try h.directory.write("defaults.json", "{oops")
            let again = try #require(
                await AuthTestHarness.stepFailure {
                    try await Self.run(h, Self.options(h, quick.merging(["defaults": .string(broken)]) { $1 }))
                }
            )
            #expect(again.code == .network)

            // With the server back, the same step succeeds.
            try await h.server.start()
            h.server.enqueue(.json(200, Self.first))
            #expect(try await Self.run(h, Self.options(h))["source"] == "network")
        }
    }

    @Test func aMalformedCacheIsNotUsedAndNotTouched() async throws {
        try await AuthTestHarness.with { h in
            try h.directory.write("config.json", "{half a config")
            try h.directory.write("config.json.etag", #""v1""#)
            let defaults = try h.directory.write("defaults.json", Self.second)
            h.server.enqueue(.status(503))
            let facts = try await Self.run(h, Self.options(h, ["defaults": "defaults.json"]))
            #expect(facts == ["source": "defaults", "path": .string(defaults), "offline": true])
            // No If-None-Match for a cache that cannot be used.
            #expect(h.server.requests.first?.header("If-None-Match") == nil)
            #expect(h.directory.read("config.json") == "{half a config")
        }
    }

    @Test func noURLUsesTheDefaultsOrNothing() async throws {
        try await AuthTestHarness.with { h in
            let none = try await Self.run(h, [:])
            #expect(none == ["source": "none", "offline": false])

            let defaults = try h.directory.write("defaults.json", Self.second)
            let facts = try await Self.run(h, ["defaults": .string(defaults)])
            #expect(facts == ["source": "defaults", "path": .string(defaults), "offline": false])
            #expect(h.server.requests.isEmpty)
        }
    }

    /// The shared client is made at the first HTTP request: a step with no URL (or a file URL)
    /// never creates it.
    @Test func theSharedHTTPClientIsCreatedAtTheFirstRequestOnly() async throws {
        try await AuthTestHarness.with { h in
            let shared = SharedHTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AuthTestHarness.clientConfiguration)
            let plugin = ConfigFetchPlugin(device: h.device, http: shared)
            let none = try await plugin.run(h.context("config-fetch", options: [:]))
            #expect(none["source"] == "none")
            let source = try h.directory.write("local.json", Self.first)
            _ = try await plugin.run(h.context("config-fetch", options: ["url": .string("file://" + source)]))
            #expect(!shared.isCreated)

            h.server.enqueue(.json(200, Self.first))
            let facts = try await plugin.run(h.context("config-fetch", options: Self.options(h)))
            #expect(facts["source"] == "network")
            #expect(shared.isCreated)
            await shared.shutdown()
        }
    }

    @Test func fileURLsAreReadAndCached() async throws {
        try await AuthTestHarness.with { h in
            let source = try h.directory.write("remote dir/config.json", Self.second)
            let url = "file://" + source.replacingOccurrences(of: " ", with: "%20")
            let facts = try await Self.run(h, ["url": .string(url), "cache": "cache/config.json"])
            let cache = h.directory.file("cache/config.json")
            #expect(facts == ["source": "network", "path": .string(cache), "offline": false])
            #expect(h.directory.read("cache/config.json") == Self.second)

            // Gone: the cache, offline.
            try FileManager.default.removeItem(atPath: source)
            let offline = try await Self.run(h, ["url": .string(url), "cache": "cache/config.json"])
            #expect(offline == ["source": "cache", "path": .string(cache), "offline": true])
        }
    }

    @Test func stalledServerTimesOutToTheCache() async throws {
        try await AuthTestHarness.with { h in
            try await Self.primeCache(h)
            h.server.enqueue(.stall)
            // The time limit passes on a test clock, once the server has the request.
            let clock = TestClock()
            let plugin = ConfigFetchPlugin(device: h.device, http: h.http, clock: clock)
            let context = h.context("config-fetch", options: Self.options(h, ["request_timeout": "200ms"]))
            let task = Task { try await plugin.run(context) }
            #expect(await waitUntil { h.server.requests.count == 2 && !clock.pendingDeadlines.isEmpty })
            clock.advance(by: .milliseconds(200))
            let facts = try #require(await result(of: task)).get()
            #expect(facts["source"] == "cache")
            #expect(facts["offline"] == true)
            #expect(h.records(atLeast: .error).contains { $0.message.contains("no reply within 200ms") })
        }
    }

    @Test func cancellationAbandonsTheFetch() async throws {
        try await AuthTestHarness.with { h in
            try await Self.primeCache(h)
            h.server.enqueue(.stall)
            let plugin = ConfigFetchPlugin(device: h.device, http: h.http)
            let context = h.context("config-fetch", options: Self.options(h, ["request_timeout": "1m"]))
            let task = Task { try await plugin.run(context) }
            #expect(await waitUntil { h.server.requests.count == 2 })
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(h.directory.read("config.json") == Self.first)
        }
    }

    @Test(arguments: [
        ("url", JSONValue.string("ftp://example.invalid/config.json")),
        ("url", .number(3)),
        ("max_bytes", .string("1MiB")),
        ("max_bytes", .number(0)),
        ("request_timeout", .string("forever")),
        ("cache", .bool(false)),
    ])
    func badOptionsFailForGood(name: String, value: JSONValue) async throws {
        try await AuthTestHarness.with { h in
            let failure = try #require(await AuthTestHarness.stepFailure { try await Self.run(h, Self.options(h, [name: value])) })
            #expect(failure.code == .badOptions)
            #expect(!failure.retryable)
            #expect(failure.message.hasPrefix("config-fetch: option '\(name)' "))
            #expect(h.server.requests.isEmpty)
        }
    }
}
