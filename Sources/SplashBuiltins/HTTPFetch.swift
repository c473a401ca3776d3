import AsyncHTTPClient
import NIOCore
import SplashCore

/// One HTTP exchange with a time limit and a bounded reply body: what the built-in plugins send.
///
/// The body is read while it streams in and abandoned as soon as it would pass `maxBytes`, so at
/// most `maxBytes` bytes are ever held. The time limit (`request_timeout`) is a sleep on `clock`
/// raced against the whole exchange, which is cancelled when the sleep wins. Cancelling the
/// calling task (the step's timeout) cancels the request and throws `CancellationError`.
struct HTTPFetch {
    /// A complete reply.
    struct Reply: Sendable {
        var status: Int
        /// Header fields as received (names in any case).
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The first value of header `name` (case-insensitive).
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Why there is no reply; descriptions name the URL's endpoint and the cause, never a body.
    enum Failure: Error, Sendable, CustomStringConvertible {
        /// Connect, TLS, timeout, a connection closed early: the network is at fault.
        case transport(String)
        /// The reply body passed the limit.
        case tooLarge(limit: Int)

        var description: String {
            switch self {
            case .transport(let reason): reason
            case .tooLarge(let limit): "reply larger than \(limit) bytes"
            }
        }
    }

    enum Method: Sendable { case get, post }

    let client: HTTPClient
    let timeout: Duration
    let maxBytes: Int
    /// The clock `timeout` passes on.
    var clock: any Clock<Duration> = ContinuousClock()

    /// Sends one request and reads its whole reply.
    ///
    /// Throws `Failure` or `CancellationError`.
    func perform(
        _ method: Method,
        url: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil
    ) async throws -> Reply {
        let timeout = self.timeout
        let clock = self.clock
        let exchange = Exchange(client: client, maxBytes: maxBytes)
        do {
            return try await withThrowingTaskGroup(of: Reply?.self) { group in
                group.addTask { try await exchange.run(method, url: url, headers: headers, body: body) }
                group.addTask {
                    try await clock.sleep(for: timeout, tolerance: nil)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let reply = first else {
                    throw Failure.transport("no reply within \(DurationFormat.format(timeout))")
                }
                return reply
            }
        } catch let failure as Failure {
            if Task.isCancelled { throw CancellationError() }
            throw failure
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw Failure.transport("\(error)")
        }
    }

    /// The request itself, without the time limit (which `perform` puts around it).
    private struct Exchange: Sendable {
        let client: HTTPClient
        let maxBytes: Int

        func run(_ method: Method, url: String, headers: [(String, String)], body: [UInt8]?) async throws -> Reply {
            var request = HTTPClientRequest(url: url)
            request.method = method == .get ? .GET : .POST
            for (name, value) in headers {
                request.headers.add(name: name, value: value)
            }
            if let body {
                request.body = .bytes(body)
            }
            let response = try await client.execute(request, deadline: .distantFuture)
            let replyHeaders = response.headers.map { (name: $0.name, value: $0.value) }
            if let length = response.headers.first(name: "content-length").flatMap({ Int($0) }), length > maxBytes {
                throw Failure.tooLarge(limit: maxBytes)
            }
            var bytes: [UInt8] = []
            for try await buffer in response.body {
                guard buffer.readableBytes <= maxBytes - bytes.count else { throw Failure.tooLarge(limit: maxBytes) }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
            return Reply(status: Int(response.status.code), headers: replyHeaders, body: bytes)
        }
    }
}
