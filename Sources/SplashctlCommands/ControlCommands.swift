import ArgumentParser
import SplashCore
import SplashProtocol

/// A control command: it sends one request, prints nothing on success and the daemon's message on
/// refusal. Each is a declaration and its request, so they share this file.
protocol ControlCommand: ParsableCommand {
    var parent: Splashctl { get }
    /// What the command asks the daemon.
    var request: Request.Command { get }
}

extension ControlCommand {
    func run() throws { try DaemonSocket(socket: parent.socket).control(request) }
}

/// `splashctl retry`.
struct Retry: ControlCommand {
    static let configuration = CommandConfiguration(abstract: "Retry after an error (phase error).")
    @ParentCommand var parent: Splashctl
    var request: Request.Command { .retry }
}

/// `splashctl continue-offline`.
struct ContinueOffline: ControlCommand {
    static let configuration = CommandConfiguration(
        commandName: "continue-offline", abstract: "Go on without the network (phase error).")
    @ParentCommand var parent: Splashctl
    var request: Request.Command { .continueOffline }
}

/// `splashctl dismissed`.
struct Dismissed: ControlCommand {
    static let configuration = CommandConfiguration(abstract: "Report that the exit animation is done (phase dismissing).")
    @ParentCommand var parent: Splashctl
    var request: Request.Command { .dismissed }
}

/// `splashctl complete STEP`.
struct Complete: ControlCommand {
    static let configuration = CommandConfiguration(abstract: "Complete a signal step.")
    @ParentCommand var parent: Splashctl
    @Argument(help: "The step's id.") var step: String
    var request: Request.Command { .complete(step: step) }
}

/// `splashctl action NAME`.
struct Action: ControlCommand {
    static let configuration = CommandConfiguration(abstract: "Trigger a quick action.")
    @ParentCommand var parent: Splashctl
    @Argument(help: "The action's name.") var name: String
    var request: Request.Command { .action(name: name) }
}

/// `splashctl open URL`.
struct Open: ControlCommand {
    static let configuration = CommandConfiguration(abstract: "Open a deep link.")
    @ParentCommand var parent: Splashctl
    @Argument(help: "The URL.") var url: String
    var request: Request.Command { .open(url: url) }
}

/// `splashctl resume`.
struct Resume: ControlCommand {
    static let configuration = CommandConfiguration(
        abstract: "The app is active again or the display woke: check the session without the splash."
    )
    @ParentCommand var parent: Splashctl
    var request: Request.Command { .resume }
}

/// `splashctl relaunch`.
struct Relaunch: ControlCommand {
    static let configuration = CommandConfiguration(abstract: "Start a new launch (phase finished).")
    @ParentCommand var parent: Splashctl
    var request: Request.Command { .relaunch }
}
