#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to 127.0.0.1 on a free port; it accepts connections once `listen()` ran.
///
/// Until then a connection to the port is refused, which lets a test start a plugin first and
/// open the port after the plugin says it is waiting.
final class LoopbackListener {
    /// The bound port.
    let port: UInt16
    private let descriptor: Int32

    /// Binds a socket to 127.0.0.1 on a port the kernel picks.
    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "bind", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "getsockname", code: code)
        }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Starts accepting connections (into the backlog; nobody needs to call accept).
    func listen() throws {
        #if canImport(Glibc)
        let rc = Glibc.listen(descriptor, 16)
        #else
        let rc = Darwin.listen(descriptor, 16)
        #endif
        guard rc == 0 else { throw Failure(operation: "listen", code: errno) }
    }

    deinit {
        close(descriptor)
    }

    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var description: String { "\(operation) failed: errno \(code)" }
    }
}
