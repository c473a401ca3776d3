import ArgumentParser
import SplashClient

/// `splashctl watch`: follow the splash until it is finished.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow state changes until phase finished.",
        discussion: "Prints one line per change; exits 0 once the splash is finished."
    )

    @ParentCommand var parent: Splashctl

    @Flag(help: "Print the state lines exactly as the daemon sends them.")
    var json = false

    func run() throws {
        try Session(socket: parent.socket).run { connection throws(ClientError) in
            try connection.watch(json: json) { Output.out($0 + "\n") }
            return 0
        }
    }
}
