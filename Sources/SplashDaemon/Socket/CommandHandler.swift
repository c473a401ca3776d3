import SplashCore

#if canImport(Glibc)
public import Glibc
public import SplashProtocol
#endif

/// What the socket server hands commands other than ping/state/subscribe to.
public protocol CommandHandler: Sendable {
    /// Carries out a control command; `.failure` is sent to the client as an `error` reply.
    func handle(_ command: Request.Command) async -> Result<Void, ProtocolError>
    /// The same, knowing the sending process (`SO_PEERCRED`; nil when unknown): a `complete` from
    /// the app process a recovery replaces is refused (`LaunchController`).
    func handle(_ command: Request.Command, from sender: pid_t?) async -> Result<Void, ProtocolError>
    /// Answers a read-only report: the `data` and optional `text` of a `result` reply.
    func report(_ report: Report) async -> Result<ReportAnswer, ProtocolError>
}

extension CommandHandler {
    public func handle(_ command: Request.Command, from sender: pid_t?) async -> Result<Void, ProtocolError> {
        await handle(command)
    }
}
