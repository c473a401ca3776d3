import Foundation

/// A `NOTIFY_SOCKET` stand-in: a real datagram socket receiving what a service sends to systemd.
public final class NotifyListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    /// Every message received so far, in order.
    public private(set) var messages: [String] = []

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(fd) }

    /// Receives until a message satisfies `predicate`; nil at the deadline.
    @discardableResult
    public func waitFor(timeout: Duration = .seconds(20), _ predicate: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&pfd, 1, ms) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            messages.append(message)
            if predicate(message) { return message }
        }
        return nil
    }

    /// Waits for a message containing the line `line` (e.g. `READY=1`).
    @discardableResult
    public func waitFor(line: String, timeout: Duration = .seconds(20)) -> String? {
        waitFor(timeout: timeout) { $0.split(separator: "\n").contains { $0 == line } }
    }
}
