import Glibc
import SplashCore
import SplashProtocol
import Synchronization

/// A real listening `AF_UNIX` socket in a fresh temp directory, serving one client from a thread.
///
/// On accept it sends `hello` (unless told not to), then runs the script with the peer. Every
/// wait in here is bounded (5 s), so a broken test ends instead of hanging. Call `finish()` to
/// join the thread and get what went wrong on the server side.
final class ScriptedServer: Sendable {
    /// Why a server script gave up.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let directory: String
    let path: String
    private let listenFD: Int32
    private let thread: Mutex<pthread_t?> = Mutex(nil)
    private let failures = FailureLog()

    /// Binds and listens; serving starts with `start`.
    init(listen: Bool = true) throws {
        var template = Array("/tmp/splashctl-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: made)
        path = directory + "/splashd.sock"
        listenFD = try Self.bind(path: path)
        if listen { guard Glibc.listen(listenFD, 8) == 0 else { throw Failure(description: "listen failed") } }
    }

    /// A server that serves one client with `script` after sending hello (when `hello` is set).
    convenience init(hello: Bool = true, _ script: @escaping @Sendable (Peer) throws -> Void) throws {
        try self.init()
        start(hello: hello, script)
    }

    deinit {
        _ = finish()
        close(listenFD)
        unlink(path)
        rmdir(directory)
    }

    /// Starts the thread that accepts one client and runs `script`.
    func start(hello: Bool = true, _ script: @escaping @Sendable (Peer) throws -> Void) {
        let job = Job { [listenFD, failures] in
            do {
                let peer = try Peer.accept(on: listenFD)
                defer { peer.close() }
                if hello { try peer.send(.hello(protocol: 1, version: "9.8.7")) }
                try script(peer)
            } catch {
                failures.entries.withLock { $0.append("\(error)") }
            }
        }
        var id = pthread_t()
        let context = Unmanaged.passRetained(job).toOpaque()
        let rc = pthread_create(&id, nil, { context in
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            job.body()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed")
        thread.withLock { $0 = id }
    }

    /// Joins the server thread and returns its failures (empty when the script ran through).
    func finish() -> [String] {
        if let id = thread.withLock({ value in defer { value = nil }; return value }) {
            pthread_join(id, nil)
        }
        return failures.entries.withLock { $0 }
    }

    private static func bind(path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, rc == 0 else { throw Failure(description: "bind \(path): errno \(errno)") }
        return fd
    }

    private final class FailureLog: Sendable {
        let entries: Mutex<[String]> = Mutex([])
    }

    private final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// The server's side of one accepted connection.
final class Peer {
    private let fd: Int32
    private var buffer: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }

    static func accept(on listenFD: Int32) throws -> Peer {
        try waitReadable(listenFD, what: "a client")
        let fd = Glibc.accept(listenFD, nil, nil)
        guard fd >= 0 else { throw ScriptedServer.Failure(description: "accept: errno \(errno)") }
        return Peer(fd: fd)
    }

    func close() { Glibc.close(fd) }

    /// Sends one message and its `\n`.
    func send(_ message: ServerMessage) throws {
        try sendRaw(message.line() + [UInt8(ascii: "\n")])
    }

    /// Sends one text line and its `\n`.
    func send(line: String) throws {
        try sendRaw(Array((line + "\n").utf8))
    }

    /// Sends bytes as they are.
    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw ScriptedServer.Failure(description: "send: errno \(errno)") }
            offset += written
        }
    }

    /// The next line from the client, or nil when it closed the connection.
    func readLine() throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return line
            }
            try Self.waitReadable(fd, what: "a request")
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    /// The next request, which must parse.
    func readRequest() throws -> Request {
        guard let line = try readLine() else { throw ScriptedServer.Failure(description: "client closed before a request") }
        switch Request.parse(line) {
        case .success(let request): return request
        case .failure(let error): throw ScriptedServer.Failure(description: "bad request: \(error.message)")
        }
    }

    /// Waits (bounded) until the client closes its end.
    func waitForClose() throws {
        while try readLine() != nil {}
    }

    private static func waitReadable(_ fd: Int32, what: String) throws {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var rc: Int32
        repeat { rc = poll(&entry, 1, 5000) } while rc < 0 && errno == EINTR
        guard rc > 0 else { throw ScriptedServer.Failure(description: "no \(what) within 5 s") }
    }
}
