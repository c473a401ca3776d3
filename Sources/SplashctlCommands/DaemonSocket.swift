import ArgumentParser
import Glibc
import SplashClient
import SplashCore
import SplashProtocol
import SplashSupport

/// The daemon's socket as a subcommand uses it: opens the connection, and turns client errors
/// into messages and exit statuses. (Not the built-ins' `Session`, the app's signed-in user.)
struct DaemonSocket {
    /// The socket path: `--socket`, else `$SPLASHD_SOCKET`, else the default.
    var path: String

    init(socket: String?) {
        path = socket ?? SocketDefaults.path(environment: ProcessEnvironment.current())
    }

    /// Connects, runs `body`, and exits with its status; client errors go to stderr with their status.
    func run(_ body: (SplashConnection) throws(ClientError) -> Int32) throws(ExitCode) {
        let status: Int32
        do {
            let connection = try SplashConnection(path: path)
            defer { connection.close() }
            status = try body(connection)
        } catch {
            Output.error(error.description)
            throw ExitCode(error.exitCode)
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Sends a control command: silent on `ok`, the daemon's message on `error`.
    func control(_ command: SplashProtocol.Request.Command) throws(ExitCode) {
        try run { connection throws(ClientError) in
            switch try connection.request(command) {
            case .ok: return 0
            case .error(let error): throw ClientError.rejected(error)
            default: throw ClientError.invalidMessage("unexpected reply to \(command.name)")
            }
        }
    }
}

/// Unbuffered writes to stdout and stderr (no global `FILE*` under strict concurrency).
enum Output {
    /// Writes `text` to stdout.
    static func out(_ text: String) { StandardStreams.write(text, to: 1) }

    /// Writes `splashctl: message` and a newline to stderr.
    static func error(_ message: String) { StandardStreams.printError("splashctl: \(message)") }
}
