public import SplashJournalWriter

/// The command line of `splashd run` in the forms systemd units and scripts use, read without
/// swift-argument-parser.
///
/// swift-argument-parser finds a command's options by reflecting over it (`Mirror`, dynamic casts,
/// protocol-conformance scans over every loaded image): measured at 3.6 ms of a 16 ms cold start
/// on a 2-core machine, before the daemon does anything. `splashd` reads the well-formed run
/// command line here and hands everything else to the parser — `--help`, `--version`, `check`,
/// `--opt=value`, anything unknown, repeated or malformed — so that help and error messages still
/// come from one place. Both readers must agree; the tests hold them to the same table.
public struct RunArguments: Sendable, Equatable {
    /// How log records are written.
    public typealias LogFormat = LogOutput.Format

    public var config: String?
    public var socket: String?
    public var stateDirectory: String?
    public var pluginDirectories: [String] = []
    public var logFormat: LogFormat = .auto
    public var verbose = false

    public init(
        config: String? = nil,
        socket: String? = nil,
        stateDirectory: String? = nil,
        pluginDirectories: [String] = [],
        logFormat: LogFormat = .auto,
        verbose: Bool = false
    ) {
        self.config = config
        self.socket = socket
        self.stateDirectory = stateDirectory
        self.pluginDirectories = pluginDirectories
        self.logFormat = logFormat
        self.verbose = verbose
    }

    /// Reads `arguments` (without the program name): an optional leading `run`, then
    /// `--config PATH`, `--socket PATH`, `--state-dir DIR`, `--plugin-dir DIR` (repeatable),
    /// `--log-format auto|journal|text|json` and `--verbose`, each at most once but `--plugin-dir`.
    /// Returns nil for anything else, which is then the argument parser's to accept or reject.
    public static func parse(_ arguments: [String]) -> RunArguments? {
        var result = RunArguments()
        var index = arguments.startIndex
        if index < arguments.endIndex, arguments[index] == "run" { index += 1 }
        // Flags rather than a Set<String>: the first use of a generic type at run time costs a
        // metadata instantiation, and this runs before anything else.
        var seenConfig = false, seenSocket = false, seenStateDirectory = false, seenLogFormat = false
        func once(_ seen: inout Bool) -> Bool {
            defer { seen = true }
            return !seen
        }
        while index < arguments.endIndex {
            let option = arguments[index]
            index += 1
            if option == "--verbose" {
                guard !result.verbose else { return nil }
                result.verbose = true
                continue
            }
            // Every other option takes the next argument as its value; one that looks like an
            // option (or is missing) is the parser's to report.
            guard index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return nil }
            let value = arguments[index]
            index += 1
            switch option {
            case "--config" where once(&seenConfig): result.config = value
            case "--socket" where once(&seenSocket): result.socket = value
            case "--state-dir" where once(&seenStateDirectory): result.stateDirectory = value
            case "--plugin-dir": result.pluginDirectories.append(value)
            case "--log-format" where once(&seenLogFormat):
                guard let format = LogFormat(rawValue: value) else { return nil }
                result.logFormat = format
            default: return nil
            }
        }
        return result
    }
}
