import ArgumentParser
import SplashClient
import SplashCore
import SplashJSON
import SplashProtocol

/// The read-only reports: `blame`, `critical-chain`, `plot`, `graph`, `history`.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report's data as JSON.")
    var json = false
}

extension DaemonSocket {
    /// Asks for `report` and prints its text (or its data as JSON, or one string member of it).
    func report(_ report: Report, json: Bool, member: String? = nil) throws(ExitCode) {
        try run { connection throws(ClientError) in
            switch try connection.request(.report(report)) {
            case .result(_, _, let data, let text):
                if json {
                    var writer = JSONWriter()
                    writer.value(data)
                    Output.out(writer.string + "\n")
                } else if let member, let value = data.objectValue?[member]?.stringValue {
                    Output.out(value.hasSuffix("\n") ? value : value + "\n")
                } else if let text {
                    Output.out(text.hasSuffix("\n") ? text : text + "\n")
                }
                return 0
            case .error(let error): throw ClientError.rejected(error)
            default: throw ClientError.invalidMessage("unexpected reply to \(report.rawValue)")
            }
        }
    }
}

struct Blame: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The steps of the last launch, slowest first.")
    @ParentCommand var parent: Splashctl
    @OptionGroup var options: ReportOptions
    func run() throws { try DaemonSocket(socket: parent.socket).report(.blame, json: options.json) }
}

struct CriticalChain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "critical-chain",
        abstract: "The chain of steps that decided when the splash could be dismissed."
    )
    @ParentCommand var parent: Splashctl
    @OptionGroup var options: ReportOptions
    func run() throws { try DaemonSocket(socket: parent.socket).report(.criticalChain, json: options.json) }
}

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "An SVG Gantt chart of the last launch, on stdout.")
    @ParentCommand var parent: Splashctl
    @OptionGroup var options: ReportOptions
    func run() throws { try DaemonSocket(socket: parent.socket).report(.plot, json: options.json, member: "svg") }
}

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The configured step graph as Graphviz DOT, on stdout.")
    @ParentCommand var parent: Splashctl
    @OptionGroup var options: ReportOptions
    func run() throws { try DaemonSocket(socket: parent.socket).report(.graph, json: options.json, member: "dot") }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The last launches, one line each.")
    @ParentCommand var parent: Splashctl
    @OptionGroup var options: ReportOptions
    func run() throws { try DaemonSocket(socket: parent.socket).report(.history, json: options.json) }
}
