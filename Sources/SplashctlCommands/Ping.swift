import ArgumentParser
import SplashClient

/// `splashctl ping`: check that the daemon answers.
struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check that splashd answers; prints pong and its version.")

    @ParentCommand var parent: Splashctl

    func run() throws {
        try DaemonSocket(socket: parent.socket).run { connection throws(ClientError) in
            switch try connection.request(.ping) {
            case .ok: Output.out("pong (splashd \(connection.serverVersion))\n")
            case .error(let error): throw ClientError.rejected(error)
            default: throw ClientError.invalidMessage("unexpected reply to ping")
            }
            return 0
        }
    }
}
