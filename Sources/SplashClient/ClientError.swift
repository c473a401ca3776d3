import SplashCore
public import SplashProtocol

/// Why a call on a `SplashConnection` failed.
///
/// Every case has a message fit for an operator (`description`) and a sysexits-style exit
/// status (`exitCode`) that `splashctl` uses.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens at the path: no socket file, or a stale one nobody accepts on.
    case daemonNotRunning(path: String, staleSocket: Bool = false)
    /// The socket exists but this user may not connect to it.
    case permissionDenied(path: String)
    /// No answer within the time allowed.
    case timedOut
    /// The daemon closed the connection (or went away).
    case connectionClosed
    /// The daemon sent something that is not a message of this protocol (or a line over the limit).
    case invalidMessage(String)
    /// The daemon answered with an `error` reply where the client needed success.
    case rejected(ProtocolError)
    /// Any other system-call failure.
    case io(String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let path, let stale):
            stale
                ? "splashd is not running (nothing listens on \(path))"
                : "splashd is not running (no socket at \(path))"
        case .permissionDenied(let path):
            "permission denied on \(path): you need to be root or in the socket's group"
        case .timedOut: "timed out waiting for splashd"
        case .connectionClosed: "splashd closed the connection"
        case .invalidMessage(let detail): "unexpected reply from splashd: \(detail)"
        case .rejected(let error): error.message
        case .io(let detail): detail
        }
    }

    /// The exit status `splashctl` uses for this error (sysexits.h).
    ///
    /// 69 `EX_UNAVAILABLE` (not running, or went away), 77 `EX_NOPERM` (socket permissions or a
    /// `permission-denied` reply), 75 `EX_TEMPFAIL` (timed out, or `busy`), 76 `EX_PROTOCOL` (bad message),
    /// 74 `EX_IOERR` (other I/O), 1 (any other `error` reply of the daemon).
    public var exitCode: Int32 {
        switch self {
        case .daemonNotRunning, .connectionClosed: 69
        case .permissionDenied: 77
        case .timedOut: 75
        case .invalidMessage: 76
        case .io: 74
        case .rejected(let error):
            switch error.code {
            case .permissionDenied: 77
            case .busy: 75
            default: 1
            }
        }
    }
}
