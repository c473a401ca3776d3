public import SplashCore

/// What the socket server hands state-changing commands to.
public protocol CommandHandler: Sendable {
    /// Carries out a control command; `.failure` is sent to the client as an `error` reply.
    func handle(_ command: Request.Command) async -> Result<Void, ProtocolError>
}
