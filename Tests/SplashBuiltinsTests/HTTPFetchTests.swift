@testable import SplashBuiltins
import Testing
import TestSupport

@Suite struct HTTPFetchTests {
    /// The time limit is a sleep on the fetch's clock: a server that never answers fails the fetch
    /// when that clock passes the limit (30 s that never pass in real time here).
    @Test func aRequestWithoutAReplyFailsWhenTheClockPassesTheTimeout() async throws {
        try await AuthTestHarness.with { h in
            h.server.enqueue(.stall)
            let clock = TestClock()
            let timeout: Duration = .seconds(30)
            let fetch = HTTPFetch(client: h.client, timeout: timeout, maxBytes: 1024, clock: clock)
            let task = Task { try await fetch.perform(.get, url: h.server.url("/never")) }

            #expect(await waitUntil { h.server.requests.count == 1 && clock.pendingDeadlines == [timeout] })
            clock.advance(to: timeout)

            let outcome = try #require(await result(of: task), "the fetch ends once the clock passed the timeout")
            #expect {
                try outcome.get()
            } throws: { error in
                (error as? HTTPFetch.Failure)?.description == "no reply within 30s"
            }
        }
    }
}
