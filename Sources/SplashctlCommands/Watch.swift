import ArgumentParser
import Glibc
import SplashClient

/// `splashctl watch`: follow the splash until it is finished.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow state changes until phase finished.",
        discussion: """
            On a terminal, draws a live progress bar with the running steps, redrawn in place; \
            piped, prints one line per change. Exits 0 once the splash is finished.
            """
    )

    @ParentCommand var parent: Splashctl

    @Flag(help: "Print the state lines exactly as the daemon sends them.")
    var json = false

    func run() throws {
        let live = !json && isatty(1) == 1
        try DaemonSocket(socket: parent.socket).run { connection throws(ClientError) in
            if live {
                var drawn = 0
                try connection.follow { state, _ in
                    let lines = ProgressBarRenderer.lines(state)
                    Output.out(ProgressBarRenderer.rewind(lineCount: drawn) + lines.joined(separator: "\n") + "\n")
                    drawn = lines.count
                    return state.phase != .finished
                }
            } else {
                try connection.watch(json: json) { Output.out($0 + "\n") }
            }
            return 0
        }
    }
}
