import Foundation
import SplashCore
import SplashDaemon
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1))) struct WatchdogTests {
    @Test func pingsEveryIntervalWhileTheProbePasses() async {
        let clock = TestClock()
        let (pings, continuation) = AsyncStream.makeStream(of: Duration.self)
        let watchdog = Watchdog(interval: .milliseconds(100), clock: clock, probe: {}, ping: { continuation.yield(clock.now.offset) })
        let task = Task { await watchdog.run() }
        var iterator = pings.makeAsyncIterator()
        #expect(await iterator.next() == .zero)
        clock.advance(to: .milliseconds(100))
        #expect(await iterator.next() == .milliseconds(100))
        clock.advance(to: .milliseconds(200))
        #expect(await iterator.next() == .milliseconds(200))
        task.cancel()
        await task.value
    }

    @Test func aStalledLoopStopsThePings() async {
        let clock = TestClock()
        let counter = PingCounter()
        let watchdog = Watchdog(
            interval: .milliseconds(100), clock: clock,
            probe: { try? await Task.sleep(for: .seconds(3600)) },  // a loop that never answers
            ping: { counter.add() }
        )
        let task = Task { await watchdog.run() }
        for step in 1...20 { clock.advance(to: .milliseconds(100 * step)) }
        await Task.yield()
        #expect(counter.value == 0)
        task.cancel()
        await task.value
        #expect(counter.value == 0)
    }
}

final class PingCounter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite struct ServiceStatusTests {
    func state(_ phase: Phase, steps: [StateMessage.Step] = [], error: ErrorInfo? = nil, destination: Destination? = nil) -> StateMessage {
        StateMessage(seq: 1, launch: "L", phase: phase, slow: false, progress: 0.426, message: nil, elapsedMs: 0, steps: steps, error: error, destination: destination)
    }

    @Test func lines() {
        let steps = [
            StateMessage.Step(id: "auth", status: .running, attempt: 1, durationMs: 5, label: "Signing in"),
            StateMessage.Step(id: "cfg", status: .running, attempt: 1, durationMs: 5),
            StateMessage.Step(id: "done", status: .succeeded, attempt: 1, durationMs: 5),
        ]
        #expect(ServiceStatus.line(for: state(.loading, steps: steps)) == "loading 42%: Signing in, cfg")
        let error = ErrorInfo(code: .network, message: "Unable to connect", step: "auth", actions: [.retry])
        #expect(ServiceStatus.line(for: state(.error, error: error)) == "error: Unable to connect (auth)")
        #expect(ServiceStatus.line(for: state(.finished, destination: Destination(screen: .login, route: "/orders/1"))) == "finished: login /orders/1")
    }
}
