import Glibc
import SplashCore
import SystemPackage

/// A connected, non-blocking `AF_UNIX` stream socket with deadline-bounded line reads and writes.
final class UnixStream {
    private var fd: Int32
    private var buffer: LineBuffer
    private var atEOF = false
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    private init(fd: Int32, maxLineBytes: Int) {
        self.fd = fd
        self.buffer = LineBuffer(maxLineBytes: maxLineBytes)
    }

    deinit { close() }

    /// Connects to the socket at `path`, giving up at `deadline`.
    static func connect(path: String, deadline: ContinuousClock.Instant, maxLineBytes: Int) throws(ClientError) -> UnixStream {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity, !pathBytes.contains(0) else {
            throw .io("invalid socket path \"\(path)\" (at most \(capacity - 1) bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + 1)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .io("socket: \(errorText(errno))") }
        let stream = UnixStream(fd: fd, maxLineBytes: maxLineBytes)
        while true {
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
            if rc == 0 { return stream }
            let code = errno
            switch code {
            case EINTR: continue
            case ENOENT: throw .daemonNotRunning(path: path, staleSocket: false)
            case ECONNREFUSED: throw .daemonNotRunning(path: path, staleSocket: true)
            case EACCES, EPERM: throw .permissionDenied(path: path)
            case EAGAIN:
                // The listener's backlog is full: try again shortly, until the deadline.
                guard ContinuousClock.now < deadline else { throw .timedOut }
                _ = poll(nil, 0, 10)
            case EINPROGRESS:
                try stream.wait(for: Int16(POLLOUT), until: deadline)
                var failure: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else {
                    throw .io("connect to \(path): \(errorText(errno))")
                }
                if failure == 0 { return stream }
                throw .io("connect to \(path): \(errorText(failure))")
            default:
                throw .io("connect to \(path): \(errorText(code))")
            }
        }
    }

    /// Writes all of `bytes`, waiting for buffer space until `deadline`. `send` with
    /// MSG_NOSIGNAL, which swift-system does not offer: a closed peer is an error, not SIGPIPE.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) throws(ClientError) {
        guard fd >= 0 else { throw .connectionClosed }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(for: Int16(POLLOUT), until: deadline)
            case EPIPE, ECONNRESET: throw .connectionClosed
            case let code: throw .io("write to splashd: \(errorText(code))")
            }
        }
    }

    /// The next complete line (without `\n`), waiting for it until `deadline` (nil: forever).
    func readLine(deadline: ContinuousClock.Instant?) throws(ClientError) -> [UInt8] {
        while true {
            if let line = try buffer.nextLine() { return line }
            guard fd >= 0, !atEOF else { throw .connectionClosed }
            try wait(for: Int16(POLLIN), until: deadline)
            let count: Int
            do {
                // swift-system retries a read interrupted by a signal (EINTR).
                count = try scratch.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }
            } catch let error as Errno {
                switch error {
                case .wouldBlock: continue
                case .connectionReset: atEOF = true; continue
                default: throw .io("read from splashd: \(errorText(error.rawValue))")
                }
            } catch {
                throw .io("read from splashd: \(error)")
            }
            if count > 0 {
                scratch.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            } else {
                atEOF = true
            }
        }
    }

    /// The socket, for a caller that waits on it beside other descriptors.
    var descriptor: Int32 { fd }

    /// Bytes received but not yet handed out as a line.
    var pendingCount: Int { buffer.pendingCount }

    func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    /// Waits until the socket is ready for `events` (or hung up), or throws `timedOut` at `deadline`.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant?) throws(ClientError) {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            var milliseconds: Int32 = -1
            var last = false
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                // At (or past) the deadline, one look without waiting: what has arrived is read
                // (a zero timeout means "if there is something", not "never").
                last = left <= .zero
                // Round up so that a short remainder does not become a busy zero-timeout poll.
                milliseconds = last ? 0 : Int32(clamping: (left + .nanoseconds(999_999)).milliseconds)
            }
            let rc = poll(&entry, 1, milliseconds)
            if rc > 0 { return }
            if rc == 0 {
                if last { throw .timedOut }
                continue  // re-check the deadline
            }
            guard errno == EINTR else { throw .io("poll: \(errorText(errno))") }
        }
    }
}

/// `strerror` as a Swift string.
func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}
