import AsyncHTTPClient
import Foundation
import Logging
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashPlugins
import Synchronization
import Testing
import TestSupport

/// What the auth-refresh and config-fetch tests share: a state directory, a real HTTP client,
/// a real test server, and a logger that keeps every record in memory.
final class AuthTestHarness: Sendable {
    let directory: TemporaryDirectory
    let device: DeviceState
    let client: HTTPClient
    /// `client` as the built-in plugins take it.
    var http: SharedHTTPClient { SharedHTTPClient(client) }
    let server: TestHTTPServer
    /// Every record the plugins under test logged.
    let log = LogCapture()

    /// The tests' client: a connect timeout no busy machine reaches. The client and every test
    /// server share NIO's loop threads, and a server writing a large reply in small chunks holds
    /// one for a while: under ThreadSanitizer on a busy machine the client's own 10 s connect
    /// timer fired before its loop saw the connection made ("connectTimeout"), to a server that
    /// was up. What a test times is `request_timeout`, on a test clock where it matters.
    static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(600))
        return configuration
    }

    private init(directory: TemporaryDirectory, server: TestHTTPServer) {
        self.directory = directory
        self.device = DeviceState(stateDirectory: directory.path)
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.clientConfiguration)
        self.server = server
    }

    /// Runs `body` with a fresh harness, then shuts the client and server down and removes the
    /// directory, whatever `body` did.
    static func with<T>(_ body: (AuthTestHarness) async throws -> T) async throws -> T {
        let harness = AuthTestHarness(directory: try TemporaryDirectory(prefix: "splash-auth"), server: try await .start())
        do {
            let result = try await body(harness)
            await harness.finish()
            return result
        } catch {
            await harness.finish()
            throw error
        }
    }

    private func finish() async {
        try? await client.shutdown()
        try? await server.stop()
        directory.remove()
    }

    /// Everything logged so far.
    var records: [LogCapture.Record] { log.records }

    /// The records at `level` or above.
    func records(atLeast level: Logger.Level) -> [LogCapture.Record] { log.records(atLeast: level) }

    /// A step context for `plugin` with `options`, logging here.
    func context(_ plugin: String, options: [String: JSONValue], reports: ReportLog? = nil) -> StepContext {
        let logger = log.logger(metadata: ["step": "\(plugin)"])
        let step = StepSpec(id: plugin, plugin: plugin, options: options)
        return StepContext(run: StepRun(step: step, launch: "test-launch", attempt: 1, token: 1), logger: logger) { report in
            reports?.append(report)
        }
    }

    /// Checks that none of `secrets` appears in any log record, in `facts` or in `failure`.
    func expectNoLeak(of secrets: [String], facts: Facts? = nil, failure: StepFailure? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let facts = facts.map { String(decoding: try! encoder.encode($0), as: UTF8.self) } ?? ""
        let failure = failure.map { "\($0.code) \($0.message)" } ?? ""
        for secret in secrets {
            for record in records {
                #expect(!record.text.contains(secret), "a log record holds a secret: \(record.message)", sourceLocation: sourceLocation)
            }
            #expect(!facts.contains(secret), "facts hold a secret", sourceLocation: sourceLocation)
            #expect(!failure.contains(secret), "the failure holds a secret", sourceLocation: sourceLocation)
        }
    }

    /// Reports a plugin sent while it ran.
    final class ReportLog: Sendable {
        private let storage = Mutex<[StepReport]>([])
        var reports: [StepReport] { storage.withLock { $0 } }
        func append(_ report: StepReport) { storage.withLock { $0.append(report) } }
    }

    /// The current time in Unix seconds.
    /// Now in Unix seconds, from the clock auth-refresh reads (`time(2)`). Not `Date()`: time(2)
    /// is the kernel's coarse clock, up to a tick behind, so just after a second began `Date()`
    /// said the next second while the plugin still read the last (a stored expiry one second
    /// "before" the test's start, in one run of README's test command).
    static func unixNow() -> Int64 { Int64(time(nil)) }

    /// The `StepFailure` that `body` throws, or nil (recorded as a test issue) when it throws none.
    static func stepFailure(_ body: () async throws -> Facts, sourceLocation: SourceLocation = #_sourceLocation) async -> StepFailure? {
        do {
            let facts = try await body()
            Issue.record("expected a StepFailure, got facts \(facts)", sourceLocation: sourceLocation)
        } catch let failure as StepFailure {
            return failure
        } catch {
            Issue.record("expected a StepFailure, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }
}
