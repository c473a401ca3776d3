public import AsyncHTTPClient
public import NIOCore
import Synchronization

/// The one HTTP client the built-in plugins share, created at the first request.
///
/// Creating an `HTTPClient` instantiates its connection pool, TLS configuration and tracing
/// hooks; a launch whose graph makes no request (the embedded default, or one with no URLs
/// configured) never pays for it, and one that does pays after the daemon already serves its
/// socket rather than before.
public final class SharedHTTPClient: Sendable {
    private let state: Mutex<HTTPClient?>
    private let make: @Sendable () -> HTTPClient

    /// A client on `eventLoopGroup` with `configuration`, made when first asked for.
    public init(eventLoopGroup: any EventLoopGroup, configuration: HTTPClient.Configuration) {
        state = Mutex(nil)
        make = { HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration) }
    }

    /// An existing client (its owner shuts it down, or `shutdown()` does).
    public init(_ client: HTTPClient) {
        state = Mutex(client)
        make = { client }
    }

    /// Whether the client exists yet.
    public var isCreated: Bool { state.withLock { $0 != nil } }

    /// The client, created on the first call.
    public var client: HTTPClient {
        state.withLock { current in
            if let current { return current }
            let created = make()
            current = created
            return created
        }
    }

    /// Shuts the client down if it was ever created.
    public func shutdown() async {
        let created = state.withLock { $0 }
        try? await created?.shutdown()
    }
}
