import Glibc
import Testing
import TestSupport

/// The HTTP tests' server, where "server down" matters: a stopped server's port refuses
/// connections and stays its own, so a test's "server down" never reaches the server of another
/// test running beside it (one did, on a busy machine, and hung its request: the port freed by
/// `stop()` had been bound again by a stalling server).
@Suite("TestHTTPServer", .timeLimit(.minutes(10)))
struct TestHTTPServerTests {
    /// `connect(2)` to 127.0.0.1:`port`: 0, or the errno.
    static func connectStatus(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = Self.loopback(port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? 0 : errno
    }

    /// `bind(2)` of a listening-to-be socket to 127.0.0.1:`port` with `SO_REUSEADDR`, as another
    /// server would: 0, or the errno.
    static func bindStatus(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? 0 : errno
    }

    static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    @Test func aStoppedServerRefusesConnectionsAndKeepsItsPort() async throws {
        let server = try await TestHTTPServer.start()
        #expect(Self.connectStatus(server.port) == 0)
        try await server.stop()
        #expect(Self.connectStatus(server.port) == ECONNREFUSED, "server down: refused")
        #expect(Self.bindStatus(server.port) == EADDRINUSE, "nobody else can take the port")
        // Started again on the same port, it answers; stopped for good, the port is let go.
        try await server.start()
        #expect(Self.connectStatus(server.port) == 0)
        try await server.stop()
        #expect(Self.bindStatus(server.port) == EADDRINUSE)
    }
}
