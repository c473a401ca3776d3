import ArgumentParser
import SplashClient
import SplashCore
import SplashProtocol

/// `splashctl wait PHASE`: block until the splash reaches a phase (for `ExecStartPre=`).
struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait until the splash reaches a phase.",
        discussion: """
            Returns at once if the splash is already in PHASE. Waiting for dismissing also ends at \
            finished. Exits 75 on timeout and 69 if the daemon goes away.
            """
    )

    @ParentCommand var parent: Splashctl

    @Argument(help: "loading, error, dismissing or finished.")
    var phase: String

    @Option(help: "Give up after this long, e.g. 30s or 2m (default: wait forever).")
    var timeout: String?

    func validate() throws {
        _ = try waiter()
    }

    func run() throws {
        let waiter = try waiter()
        try DaemonSocket(socket: parent.socket).run { connection throws(ClientError) in
            switch try waiter.run(on: connection) {
            case .reached: return 0
            case .timedOut(let lastSeen):
                Output.error(waiter.timeoutMessage(lastSeen: lastSeen))
                return ClientError.timedOut.exitCode
            }
        }
    }

    private func waiter() throws(ValidationError) -> PhaseWaiter {
        guard let target = Phase(rawValue: phase) else {
            let names = Phase.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("unknown phase \"\(phase)\" (expected one of \(names))")
        }
        var limit: Duration?
        if let timeout {
            do { limit = try DurationFormat.parse(timeout) } catch { throw ValidationError(error.description) }
        }
        return PhaseWaiter(target, timeout: limit)
    }
}
