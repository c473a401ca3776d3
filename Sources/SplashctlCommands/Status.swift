import ArgumentParser
import SplashClient
import SplashCore
import SplashProtocol

/// `splashctl status`: the current state as a table, or as its JSON line.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the current phase, progress and steps.")

    @ParentCommand var parent: Splashctl

    @Flag(help: "Print the state message as JSON (one line).")
    var json = false

    func run() throws {
        try DaemonSocket(socket: parent.socket).run { connection throws(ClientError) in
            guard case .state(var state) = try connection.request(.state) else {
                throw ClientError.invalidMessage("unexpected reply to state")
            }
            state.id = nil
            Output.out(json ? ServerMessage.state(state).encoded() + "\n" : StatusRenderer.table(state))
            return 0
        }
    }
}
