#if canImport(Glibc)
    import Glibc
#endif

/// The process's side of a `CommandSpec`: what `main` calls first.
public enum CommandLineTool {
    /// Reads the command line. Returns what to run; answers `--help`, `--version`, the dump and
    /// the completions itself and exits 0; for a bad command line prints the error and the usage
    /// on stderr and exits 64 (EX_USAGE), as swift-argument-parser does.
    public static func parse(_ spec: CommandSpec, version: String, arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> ParsedCommand {
        switch spec.parse(arguments) {
        case .run(let parsed): return parsed
        case .help(let text): finish(text, status: 0)
        case .version: finish(version + "\n", status: 0)
        case .dumpHelp: finish(spec.toolInfo(), status: 0)
        case .completionScript(let shell): finish(CompletionScript.script(for: spec, shell: CompletionScript.Shell(rawValue: shell) ?? .bash), status: 0)
        case .usageError(let message, let subcommand): usageError(spec, subcommand: subcommand, message)
        }
    }

    /// Ends the process once the command has run: 0 when it threw nothing; an `ExitCode`'s status;
    /// a `ValidationError` as a usage error (64); anything else said on stderr, 1 (as
    /// swift-argument-parser ends a command).
    public static func exit(_ spec: CommandSpec, _ parsed: ParsedCommand, after error: (any Error)?) -> Never {
        switch error {
        case nil: finish("", status: 0)
        case let status as ExitCode: finish("", status: status.rawValue)
        case let refused as ValidationError: usageError(spec, subcommand: parsed.subcommand, refused.message)
        case let error?: finish("Error: \(error)\n", status: 1, to: 2)
        }
    }

    /// A command line the parser took but the command refuses (`--rotate 7`): the message and
    /// the usage on stderr, exit 64.
    public static func usageError(_ spec: CommandSpec, subcommand: String?, _ message: String) -> Never {
        let command = subcommand.flatMap(spec.subcommand)
        let usage = command?.usage(tool: spec.name) ?? spec.usage()
        let help = command.map { "\(spec.name) \($0.name) --help" } ?? "\(spec.name) --help"
        finish("Error: \(message)\nUsage: \(usage)\n  See '\(help)' for more information.\n", status: 64, to: 2)
    }

    static func finish(_ text: String, status: Int32, to descriptor: Int32 = 1) -> Never {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let wrote = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { break }
            bytes = bytes.dropFirst(wrote)
        }
        Glibc.exit(status)
    }
}

/// Thrown by a command to end the process with this status (what it has to say it has said).
public struct ExitCode: Error, Sendable, Equatable {
    public var rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }
}

/// Thrown by a command whose command line parsed but cannot be run as given: `main` prints it
/// with the usage and exits 64 (`CommandLineTool.usageError`).
public struct ValidationError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
