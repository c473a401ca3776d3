import ArgumentParser

// The control commands: each sends one request, prints nothing on success and the daemon's
// message on refusal. They are one-liners, so they share this file.

/// `splashctl retry`.
struct Retry: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Retry after an error (phase error).")
    @ParentCommand var parent: Splashctl
    func run() throws { try DaemonSocket(socket: parent.socket).control(.retry) }
}

/// `splashctl continue-offline`.
struct ContinueOffline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "continue-offline", abstract: "Go on without the network (phase error).")
    @ParentCommand var parent: Splashctl
    func run() throws { try DaemonSocket(socket: parent.socket).control(.continueOffline) }
}

/// `splashctl dismissed`.
struct Dismissed: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Report that the exit animation is done (phase dismissing).")
    @ParentCommand var parent: Splashctl
    func run() throws { try DaemonSocket(socket: parent.socket).control(.dismissed) }
}

/// `splashctl complete STEP`.
struct Complete: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Complete a signal step.")
    @ParentCommand var parent: Splashctl
    @Argument(help: "The step's id.") var step: String
    func run() throws { try DaemonSocket(socket: parent.socket).control(.complete(step: step)) }
}

/// `splashctl action NAME`.
struct Action: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Trigger a quick action.")
    @ParentCommand var parent: Splashctl
    @Argument(help: "The action's name.") var name: String
    func run() throws { try DaemonSocket(socket: parent.socket).control(.action(name: name)) }
}

/// `splashctl open URL`.
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Open a deep link.")
    @ParentCommand var parent: Splashctl
    @Argument(help: "The URL.") var url: String
    func run() throws { try DaemonSocket(socket: parent.socket).control(.open(url: url)) }
}

/// `splashctl resume`.
struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The app is active again or the display woke: check the session without the splash."
    )
    @ParentCommand var parent: Splashctl
    func run() throws { try DaemonSocket(socket: parent.socket).control(.resume) }
}

/// `splashctl relaunch`.
struct Relaunch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start a new launch (phase finished).")
    @ParentCommand var parent: Splashctl
    func run() throws { try DaemonSocket(socket: parent.socket).control(.relaunch) }
}
