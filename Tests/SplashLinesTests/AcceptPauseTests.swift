#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOEmbedded
import SplashLines
import Synchronization
import Testing

/// The listening socket's pause after `accept` ran out of descriptors (the daemon's and the
/// bridge's): it ends after its time, and a shortage is reported once until a connection gets
/// through. (An embedded channel has no `autoRead`: that reading really stops is shown on the real
/// socket at a lowered limit, ConnectionFloodChaosTests and Tests/browser/test_bridge_chaos.py.)
@Suite struct AcceptPauseTests {
    @Test func aShortagePausesAcceptingAndIsReportedOnceUntilAConnectionGetsThrough() throws {
        let channel = EmbeddedChannel()
        let reports = Mutex(0)
        let pause = AcceptPause(pause: .milliseconds(250)) { _ in reports.withLock { $0 += 1 } }
        try channel.pipeline.syncOperations.addHandler(pause)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()

        channel.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept4"))
        #expect(pause.isPaused)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(249))
        #expect(pause.isPaused)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!pause.isPaused)

        // Still short: paused again, not reported again.
        channel.pipeline.fireErrorCaught(IOError(errnoCode: ENFILE, reason: "accept4"))
        #expect(pause.isPaused && reports.withLock { $0 } == 1)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(250))
        // A connection got through: the next shortage is news.
        try channel.writeInbound(ByteBuffer())
        channel.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept4"))
        #expect(reports.withLock { $0 } == 2)
    }

    @Test func anAbortedConnectionDoesNotPause() throws {
        let channel = EmbeddedChannel()
        let pause = AcceptPause(pause: .milliseconds(250))
        try channel.pipeline.syncOperations.addHandler(pause)
        channel.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept4"))
        #expect(!pause.isPaused)
    }
}
