import AsyncHTTPClient
package import Logging
public import NIOCore
package import SplashCore
package import SplashJSON
public import SplashPlugins
package import SplashProtocol

/// The built-in bootstrap plugins and what the daemon shares with them: the device's state
/// directory and one HTTP client, created at the first request. The rest is the daemon's
/// (`package`): what the socket's `action`, `open`, `sign-in` and `sign-out` do to the
/// built-ins' inbox and files.
public struct BuiltinServices: Sendable {
    public let device: DeviceState
    let http: SharedHTTPClient
    /// Quick actions and deep links received while a launch runs, for its quick-action step.
    let inbox = QuickActionInbox()

    /// - Parameter eventLoopGroup: the daemon's own loop; HTTP needs no threads of its own.
    public init(stateDirectory: String, eventLoopGroup: any EventLoopGroup) {
        device = DeviceState(stateDirectory: stateDirectory)
        var configuration = HTTPClient.Configuration()
        // A server that is down should fall back to the cache at once, not after request_timeout.
        configuration.timeout = .init(connect: .seconds(3))
        configuration.connectionPool.retryConnectionEstablishment = false
        http = SharedHTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    /// The built-in plugins by name.
    public func plugins() -> [String: any StepPlugin] {
        [
            BuiltinPlugin.authRefresh.name: AuthRefreshPlugin(device: device, http: http),
            BuiltinPlugin.configFetch.name: ConfigFetchPlugin(device: device, http: http),
            BuiltinPlugin.launchCounter.name: LaunchCounterPlugin(device: device),
            BuiltinPlugin.quickAction.name: QuickActionPlugin(device: device, inbox: inbox),
        ]
    }

    /// Queues an `action` / `open` for the running launch's quick-action step.
    package func post(_ input: QuickInput) { inbox.post(input) }

    /// Inputs that arrived after the quick-action step had run; they are routed as events instead.
    package func leftoverInputs() -> [QuickInput] { inbox.drain() }

    /// A new launch: inputs of the last one are gone.
    package func launchStarted() { inbox.reset() }

    /// The event for an `action` / `open` after `finished`, routed by `graph`'s quick-action step
    /// (its parsed scheme, routes and actions); nil when that step's router does not know it.
    /// Without a quick-action step, every input is passed on as it is.
    package func event(for input: QuickInput, graph: StepGraph, logger: Logger) -> ServerMessage? {
        guard let step = graph.steps.first(where: { $0.plugin == BuiltinPlugin.quickAction.name }) else {
            return Self.event(input, resolution: nil)
        }
        guard let resolution = resolve(input, step: step, logger: logger) else { return nil }
        return Self.event(input, resolution: resolution)
    }

    /// Where `input` goes under the quick-action `step`'s options; nil (logged) when nowhere.
    package func resolve(_ input: QuickInput, step: StepSpec, logger: Logger) -> QuickActionRouter.Resolution? {
        let router: QuickActionRouter
        do {
            router = QuickActionRouter(options: try step.builtinOptions(QuickActionOptions.self))
        } catch {
            logger.error("\(error.message)")
            return nil
        }
        guard let resolution = router.resolve(input) else {
            logger.warning("unknown quick action or deep link dropped: \(String(input.text.prefix(200)))")
            return nil
        }
        return resolution
    }

    package static func event(_ input: QuickInput, resolution: QuickActionRouter.Resolution?) -> ServerMessage {
        var fields: [String: JSONValue] = [:]
        switch input {
        case .action(let name): fields["name"] = .string(name)
        case .open: fields["url"] = .string(resolution?.url ?? input.text)
        }
        if let route = resolution?.route { fields["route"] = .string(route) }
        if let sheet = resolution?.sheet { fields["sheet"] = .string(sheet) }
        switch input {
        case .action: return .event(name: "action", fields: fields)
        case .open: return .event(name: "open", fields: fields)
        }
    }

    /// Stores the session the app hands over with `sign-in`, where `graph`'s auth-refresh step reads it.
    package func signIn(_ json: [String: JSONValue], graph: StepGraph, logger: Logger) -> Result<Void, ProtocolError> {
        let store: SessionStore
        do { store = try sessionStore(graph) } catch { return .failure(error) }
        let session: Session
        do {
            session = try Session(json: json)
        } catch {
            return .failure(ProtocolError(code: .badRequest, message: "sign-in: \(error.reason)"))
        }
        do {
            try store.write(session)
        } catch {
            logger.error("cannot store the session: \(error)")
            return .failure(ProtocolError(code: .unavailable, message: "cannot store the session"))
        }
        logger.notice("signed in\(session.user.map { " as \($0)" } ?? ""); the session takes effect with the next launch")
        return .success(())
    }

    /// Removes the stored session (`sign-out`).
    package func signOut(graph: StepGraph, logger: Logger) -> Result<Void, ProtocolError> {
        let store: SessionStore
        do { store = try sessionStore(graph) } catch { return .failure(error) }
        do {
            try store.remove()
        } catch {
            logger.error("cannot remove the session: \(error)")
            return .failure(ProtocolError(code: .unavailable, message: "cannot remove the session"))
        }
        logger.notice("signed out")
        return .success(())
    }

    /// Remembers that a launch on this device reached `finished` (for `first_launch`).
    package func launchFinished(logger: Logger) {
        do { try device.recordFinishedLaunch() } catch { logger.error("\(error)") }
    }

    package func shutdown() async { await http.shutdown() }

    /// The session file of `graph`'s auth-refresh step, from its parsed options.
    private func sessionStore(_ graph: StepGraph) throws(ProtocolError) -> SessionStore {
        guard let step = graph.steps.first(where: { $0.plugin == BuiltinPlugin.authRefresh.name }) else {
            throw Self.noAuthStep
        }
        do {
            let options = try step.builtinOptions(AuthRefreshOptions.self)
            return SessionStore(path: AuthRefreshPlugin.sessionPath(options: options, device: device))
        } catch {
            throw ProtocolError(code: .unavailable, message: error.message)
        }
    }

    private static let noAuthStep = ProtocolError(
        code: .unavailable, message: "this graph has no auth-refresh step to sign in to"
    )
}
