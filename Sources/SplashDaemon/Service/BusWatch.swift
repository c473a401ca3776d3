import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A watch of the bus that connects again after a failure: a pause of a second, doubling up to
/// 30 s while nothing comes through, back to a second once something did.
enum BusWatch {
    static let maximumPause: Duration = .seconds(30)

    /// Runs `attempt` (the C watch: its result, 0 when stopped, and whether it delivered anything)
    /// on a thread of its own until the returned function is called; `onLost` hears each failure.
    static func start(
        attempt: @escaping @Sendable (_ stopFD: Int32, _ message: UnsafeMutablePointer<CChar>) -> (Int32, delivered: Bool),
        onLost: @escaping @Sendable (String) -> Void
    ) -> @Sendable () -> Void {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            onLost("cannot make the watch's stop pipe: errno \(errno)")
            return {}
        }
        let stopRead = pipeEnds[0]
        let stopWrite = pipeEnds[1]
        // Not inherited by plugin processes.
        _ = fcntl(stopRead, F_SETFD, FD_CLOEXEC)
        _ = fcntl(stopWrite, F_SETFD, FD_CLOEXEC)
        let stopped = Atomic<Bool>(false)
        BlockingThread.start {
            defer { close(stopRead) }
            var pause = Duration.seconds(1)
            while true {
                var message = [CChar](repeating: 0, count: 512)
                let (result, delivered) = message.withUnsafeMutableBufferPointer { attempt(stopRead, $0.baseAddress!) }
                if result == 0 { return }
                onLost(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                if delivered { pause = .seconds(1) }
                var stop = pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)
                if poll(&stop, 1, Int32(pause.components.seconds * 1000)) > 0 { return }
                pause = min(pause * 2, maximumPause)
            }
        }
        return {
            guard !stopped.exchange(true, ordering: .relaxed) else { return }
            var byte: UInt8 = 1
            _ = write(stopWrite, &byte, 1)
            close(stopWrite)
        }
    }
}
