import Foundation
import SplashProtocol
import Synchronization
import SplashCore
import SplashDaemon
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(10))) struct WatchdogTests {
    /// The instants (on the test clock) of the pings so far.
    final class Pings: Sendable {
        private let offsets = Mutex<[Duration]>([])
        var all: [Duration] { offsets.withLock { $0 } }
        func record(_ offset: Duration) { offsets.withLock { $0.append(offset) } }
    }

    /// A probe the test answers: each call waits until the test lets one through.
    final class HeldProbe: Sendable {
        private struct State {
            var entered = 0
            var passes = 0
            var waiting: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Mutex(State())

        /// How many probes have started.
        var entered: Int { state.withLock { $0.entered } }

        func probe() async {
            await withCheckedContinuation { continuation in
                let passNow = state.withLock { state in
                    state.entered += 1
                    guard state.passes > 0 else {
                        state.waiting.append(continuation)
                        return false
                    }
                    state.passes -= 1
                    return true
                }
                if passNow { continuation.resume() }
            }
        }

        /// Lets the waiting probe through, or the next one to start.
        func letOneThrough() {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiting.isEmpty else {
                    state.passes += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            waiting?.resume()
        }
    }

    /// The pings keep to the schedule the watchdog started on: a late wake-up (the clock passed
    /// the deadline by 50 ms) does not move the following deadlines.
    @Test func pingsEveryIntervalWhileTheProbePasses() async {
        let clock = TestClock()
        let pings = Pings()
        let watchdog = Watchdog(interval: .milliseconds(100), clock: clock, probe: {}, ping: { pings.record(clock.now.offset) })
        let task = Task { await watchdog.run() }

        #expect(await waitUntil { pings.all == [.zero] })
        #expect(await waitUntil { clock.pendingDeadlines == [.milliseconds(100)] })
        clock.advance(to: .milliseconds(100))
        #expect(await waitUntil { pings.all == [.zero, .milliseconds(100)] })
        #expect(await waitUntil { clock.pendingDeadlines == [.milliseconds(200)] })
        clock.advance(to: .milliseconds(250))
        #expect(await waitUntil { pings.all == [.zero, .milliseconds(100), .milliseconds(250)] })
        #expect(await waitUntil { clock.pendingDeadlines == [.milliseconds(300)] }, "\(clock.pendingDeadlines)")
        task.cancel()
        await task.value
        #expect(pings.all.count == 3)
    }

    /// After pings went out, a probe that does not come back stops them, however far the clock
    /// moves; the ping that follows comes only when the probe is answered.
    @Test func aStalledLoopStopsThePingsUntilItAnswers() async {
        let clock = TestClock()
        let pings = Pings()
        let probe = HeldProbe()
        let watchdog = Watchdog(
            interval: .milliseconds(100), clock: clock, probe: { await probe.probe() }, ping: { pings.record(clock.now.offset) }
        )
        let task = Task { await watchdog.run() }
        probe.letOneThrough()
        #expect(await waitUntil { pings.all == [.zero] })
        #expect(await waitUntil { clock.pendingDeadlines == [.milliseconds(100)] })

        clock.advance(to: .milliseconds(100))
        #expect(await waitUntil { probe.entered == 2 }, "the second probe started")
        clock.advance(to: .seconds(1))
        #expect(clock.pendingDeadlines.isEmpty, "no ping is scheduled while the probe hangs")
        #expect(pings.all == [.zero])

        probe.letOneThrough()
        #expect(await waitUntil { pings.all.count == 2 })
        #expect(pings.all == [.zero, .seconds(1)], "the ping came when the probe answered, not on the schedule")

        // Cancelled while a probe hangs: no ping after it.
        clock.advance(to: .seconds(2))
        #expect(await waitUntil { probe.entered == 3 })
        let before = pings.all
        task.cancel()
        probe.letOneThrough()
        await task.value
        #expect(pings.all == before)
    }
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
        // An update or a shutdown says so, whatever the launch's phase.
        var update = state(.finished, destination: Destination(screen: .home))
        update.mode = .update
        update.update = UpdateStatus(source: .rauc, progress: 0.427, message: "Copying image to rootfs.1")
        #expect(ServiceStatus.line(for: update) == "update 42%: Copying image to rootfs.1")
        update.update = UpdateStatus(source: .rauc, progress: 0.4, result: .failed, error: "signature verification failed")
        #expect(ServiceStatus.line(for: update) == "update failed: signature verification failed")
        var down = state(.loading)
        down.mode = .shutdown
        down.shutdown = .reboot
        #expect(ServiceStatus.line(for: down) == "shutdown: reboot")
    }
}
