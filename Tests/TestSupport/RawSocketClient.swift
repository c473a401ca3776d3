import Foundation

/// A bare Unix stream connection that reads nothing by itself (no `hello` expected): for tests
/// that look at exactly what the daemon sends, and whether it closes the connection.
public final class RawSocketClient {
    private var fd: Int32

    /// Connects to the socket at `path`.
    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonFailure(message: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
            raw[min(bytes.count, raw.count - 1)] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            throw DaemonFailure(message: "connect to \(path): \(reason)")
        }
    }

    deinit { close() }

    /// Sends `bytes` (blocking).
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw DaemonFailure(message: "send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// What the daemon sends until it closes the connection, and whether it did close it within
    /// `timeout` (false: the bytes read so far).
    public func readUntilClosed(timeout: Duration = .seconds(10)) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return (bytes, false) }
            var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&pollFD, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == ECONNRESET { return (bytes, true) }
            guard count > 0 else { return (bytes, true) }
            bytes += chunk[..<count]
        }
    }

    /// The next line the daemon sends (without its `\n`), or nil at the deadline or the end.
    public func readLine(timeout: Duration = .seconds(10)) -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        var byte: UInt8 = 0
        var line: [UInt8] = []
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&pollFD, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = recv(fd, &byte, 1, 0)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return line }
            line.append(byte)
        }
    }

    /// Closes the connection.
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
