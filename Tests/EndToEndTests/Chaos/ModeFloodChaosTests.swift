import Foundation
import SplashClient
import SplashCore
import Synchronization
import TestSupport
import Testing

/// A writer that loops `MSG`/`QUIT` on psplash's FIFO after `finished`: every cycle is an update
/// that begins and ends, two changes of mode. Each one saved the history with an fsync in a chain
/// of tasks nothing bounded, and was published at once: 20,000 cycles in 0.4 s took the daemon
/// from 32 to 214 MB for good, kept it fsyncing for 100 s after the writer stopped, sent a
/// subscriber tens of thousands of states, and SIGTERM took 63 s (systemd would have killed it).
@MainActor @Suite struct ModeFloodChaosTests {
    static let cycles = 20_000

    static func rssKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    @Test func aLoopOfModeChangesIsPacedSavedOnceAtATimeAndLeavesMemoryFlat() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try DaemonProcess(config: TestConfig.instantSplash + """
            timeout = "10m"

            [update]
            psplash_fifo = true
            end_view = "0s"

            [[step]]
            id = "first-frame"
            plugin = "signal"
            """, environment: ["PSPLASH_FIFO_DIR": directory.path])
        let fifo = directory.file("psplash_fifo")
        #expect(daemon.waitForLog("reading psplash's FIFO \(fifo)"), "\(daemon.log)")
        let control = try daemon.connect()
        _ = try control.request(.complete(step: "first-frame"))
        let done = try daemon.connect().follow(timeout: .seconds(30) * waitScale) { state, _ in state.phase != .finished }
        #expect(done.phase == .finished)

        // A subscriber counts the states it is sent.
        let subscriber = try RawSocketClient(path: daemon.socketPath)
        try subscriber.write(Array(#"{"cmd":"subscribe","ticks":false}"#.utf8) + [0x0A])
        #expect(subscriber.readLine() != nil, "subscribed")
        let states = Atomic<Int>(0)
        // The reading thread is the connection's only user from here on; it ends when the daemon
        // stops and closes it.
        nonisolated(unsafe) let reader = subscriber
        let reading = Thread { while let line = reader.readLine(timeout: .seconds(600)) {
            if line.starts(with: Array(#"{"type":"state""#.utf8)) { states.add(1, ordering: .relaxed) }
        } }
        reading.start()

        let before = Self.rssKiB(daemon.pid)
        let fd = open(fifo, O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0, "the FIFO opens: errno \(errno)")
        var cycle: [UInt8] = []
        for index in 0..<Self.cycles { cycle += Array("MSG m\(index)\0QUIT\0".utf8) }
        let written = cycle.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { break }
                offset += n
            }
            return offset
        }
        close(fd)
        #expect(written == cycle.count)
        // The last QUIT was applied once the mode is back to `launch` and the log says it; the
        // loop is idle once a report, which goes through it, is answered.
        #expect(daemon.waitForLog("the update's writer said QUIT", timeout: .seconds(120)), "\(daemon.log.suffix(1000))")
        #expect(await waitUntil(timeout: .seconds(120)) { (try? daemon.connect().request(.state)).map { message in
            if case .state(let state) = message { state.mode == .launch } else { false }
        } ?? false })
        _ = try daemon.connect().request(.report(.history))
        let after = Self.rssKiB(daemon.pid)
        print("mode flood: \(Self.cycles) cycles, RSS \(before) -> \(after) KiB, \(states.load(ordering: .relaxed)) states to a subscriber")
        // Before: +180 MB. A few MB of allocator slack are not a leak.
        #expect(after - before < 48 * 1024, "RSS \(before) -> \(after) KiB")
        // Paced as other states: far fewer than one a cycle (before: about 0.8 a cycle).
        #expect(states.load(ordering: .relaxed) < Self.cycles / 10, "\(states.load(ordering: .relaxed)) states")
        // The journal: an update's start, QUIT and change of mode 20 a minute each kind at most
        // (before: three records a cycle, 60,000).
        let began = daemon.logLines(containing: "an update began").count
        let quits = daemon.logLines(containing: "the update's writer said QUIT").count
        print("mode flood: \(began) 'an update began' and \(quits) QUIT records")
        #expect(began <= 20 && quits <= 20, "\(began) starts, \(quits) QUITs logged")
        // SIGTERM is answered promptly: at most one history save was pending (before: 63 s).
        let stopped = ContinuousClock.now
        #expect(daemon.stop(timeout: .seconds(20)) == 0)
        print("mode flood: SIGTERM answered in \(ContinuousClock.now - stopped)")
    }
}
