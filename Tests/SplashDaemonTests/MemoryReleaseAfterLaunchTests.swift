import SplashCore
@testable import SplashDaemon
import SplashProtocol
import Synchronization
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(10))) struct MemoryReleaseAfterLaunchTests {
    /// The instants (on the test clock) at which the release ran.
    final class Releases: Sendable {
        private let offsets = Mutex<[Duration]>([])
        var all: [Duration] { offsets.withLock { $0 } }
        func record(_ offset: Duration) { offsets.withLock { $0.append(offset) } }
    }

    /// A component on a test clock fed by a stream of states, and what it released.
    struct Harness {
        let clock = TestClock()
        let releases = Releases()
        let states: AsyncStream<StateMessage>
        let publisher: AsyncStream<StateMessage>.Continuation
        let task: Task<Void, Never>

        init() {
            (states, publisher) = AsyncStream.makeStream(of: StateMessage.self)
            let component = MemoryReleaseAfterLaunch(clock: clock) { [clock, releases] in releases.record(clock.now.offset) }
            task = Task { [states] in await component.run(following: states) }
        }

        func publish(_ phase: Phase, launch: String) {
            publisher.yield(StateMessage(
                seq: 1, launch: launch, phase: phase, slow: false, progress: 1, message: nil, elapsedMs: 0, steps: [],
                error: nil, destination: nil
            ))
        }

        /// Ends the states and waits for the component to return.
        func finish() async {
            publisher.finish()
            await task.value
        }
    }

    @Test func theReleaseComesOnceTheClockPassesASecondAfterFinished() async {
        let h = Harness()
        h.publish(.loading, launch: "L1")
        h.clock.advance(to: .seconds(5))
        h.publish(.finished, launch: "L1")

        #expect(await waitUntil { h.clock.pendingDeadlines == [.seconds(6)] }, "the release waits on the clock")
        #expect(h.releases.all.isEmpty)
        h.clock.advance(to: .seconds(6))
        #expect(await waitUntil { h.releases.all == [.seconds(6)] }, "\(h.releases.all)")
        await h.finish()
    }

    @Test func aNewLaunchWithinTheSecondCancelsTheRelease() async {
        let h = Harness()
        h.publish(.finished, launch: "L1")
        #expect(await waitUntil { h.clock.pendingDeadlines == [.seconds(1)] })
        h.clock.advance(to: .milliseconds(500))
        h.publish(.loading, launch: "L2")
        #expect(await waitUntil { h.clock.pendingDeadlines.isEmpty }, "the release of L1 is cancelled")

        h.clock.advance(to: .seconds(5))
        h.publish(.finished, launch: "L2")
        #expect(await waitUntil { h.clock.pendingDeadlines == [.seconds(6)] })
        h.clock.advance(to: .seconds(6))
        #expect(await waitUntil { !h.releases.all.isEmpty })
        await h.finish()
        #expect(h.releases.all == [.seconds(6)], "only L2's release ran")
    }

    @Test func aLaunchIsReleasedOnceHoweverOftenItsFinishedStateIsPublished() {
        var schedule = MemoryReleaseAfterLaunch<TestClock>.Schedule()
        #expect(schedule.observe(phase: .loading, launch: "L1") == .disarm)
        #expect(schedule.observe(phase: .finished, launch: "L1") == .arm)
        #expect(schedule.observe(phase: .finished, launch: "L1") == .keep)
        #expect(schedule.observe(phase: .dismissing, launch: "L2") == .disarm)
        #expect(schedule.observe(phase: .finished, launch: "L2") == .arm)
        #expect(schedule.observe(phase: .finished, launch: "L2") == .keep)
    }

    @Test func endingTheStatesDropsAWaitingRelease() async {
        let h = Harness()
        h.publish(.finished, launch: "L1")
        #expect(await waitUntil { h.clock.pendingDeadlines == [.seconds(1)] })
        await h.finish()
        #expect(await waitUntil { h.clock.pendingDeadlines.isEmpty })
        h.clock.advance(to: .seconds(2))
        #expect(h.releases.all.isEmpty)
    }
}
