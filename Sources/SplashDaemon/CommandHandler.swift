public import SplashCore

/// What the socket server hands commands other than ping/state/subscribe to.
public protocol CommandHandler: Sendable {
    /// Carries out a control command; `.failure` is sent to the client as an `error` reply.
    func handle(_ command: Request.Command) async -> Result<Void, ProtocolError>
    /// Answers a read-only report: the `data` and optional `text` of a `result` reply.
    func report(_ report: Report) async -> Result<ReportAnswer, ProtocolError>
}
