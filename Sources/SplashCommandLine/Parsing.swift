/// A command line read against its `CommandSpec`: which subcommand, and what was given.
public struct ParsedCommand: Sendable, Equatable {
    /// The subcommand chosen (by name, or the default), nil for the tool itself.
    public var subcommand: String?
    /// Each option given, by its long name, with its values in order (a flag: one empty value
    /// per time given).
    public var values: [String: [String]]
    public var positionals: [String]

    public init(subcommand: String? = nil, values: [String: [String]] = [:], positionals: [String] = []) {
        self.subcommand = subcommand
        self.values = values
        self.positionals = positionals
    }

    /// The option's value: the last one given, else nil.
    public func string(_ long: String) -> String? { values[long]?.last }
    /// Every value of a repeated option, in order.
    public func strings(_ long: String) -> [String] { values[long] ?? [] }
    public func flag(_ long: String) -> Bool { values[long] != nil }
    /// A whole-number option's value (the parser has checked it is one).
    public func integer(_ long: String) -> Int? { string(long).flatMap { Int($0) } }
}

/// What the command line asks for.
public enum CommandRequest: Sendable, Equatable {
    /// Run the command.
    case run(ParsedCommand)
    /// Print this help text (of the tool or one subcommand) and exit 0.
    case help(String)
    case version
    /// The command line as swift-argument-parser's ToolInfo JSON (for the man page).
    case dumpHelp
    /// A completion script for this shell.
    case completionScript(String)
    /// A bad command line: the message, and the subcommand whose usage to print (exit 64).
    case usageError(String, subcommand: String?)
}

extension CommandSpec {
    /// Reads `arguments` (without the program's name). Never fails: a bad command line is a
    /// `.usageError` naming what is wrong.
    public func parse(_ arguments: [String]) -> CommandRequest {
        if arguments.first == "--experimental-dump-help" {
            return arguments.count == 1 ? .dumpHelp : .usageError("Unexpected argument '\(arguments[1])'", subcommand: nil)
        }
        if arguments.first == "--generate-completion-script" {
            guard arguments.count == 2, CompletionScript.Shell(rawValue: arguments[1]) != nil else {
                return .usageError("--generate-completion-script takes bash, zsh or fish", subcommand: nil)
            }
            return .completionScript(arguments[1])
        }
        if arguments.first == "help" {
            let rest = arguments.dropFirst()
            guard let name = rest.first else { return .help(helpText()) }
            guard rest.count == 1, let sub = subcommand(name) else { return .usageError("Unknown subcommand '\(rest.joined(separator: " "))'", subcommand: nil) }
            return .help(sub.helpText(tool: self.name))
        }
        // The first word names the subcommand, else the default one takes every word.
        var words = arguments[...]
        var command = self
        var chosen: String?
        var named = false
        if let first = words.first, let sub = subcommand(first) {
            command = sub
            chosen = sub.name
            named = true
            words = words.dropFirst()
        } else if let name = defaultSubcommand, let sub = subcommand(name) {
            command = sub
            chosen = sub.name
        }
        // `--help` after a subcommand's name is its help; otherwise the tool's.
        let help = { named ? command.helpText(tool: name) : helpText() }
        var parsed = ParsedCommand(subcommand: chosen)
        var onlyPositionals = false
        while let word = words.first {
            words = words.dropFirst()
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                guard parsed.positionals.count < command.positionals.count else {
                    return .usageError("Unexpected argument '\(word)'", subcommand: chosen)
                }
                parsed.positionals.append(word)
                continue
            }
            switch word {
            case "--": onlyPositionals = true; continue
            case "-h", "--help": return .help(help())
            case "--version": return .version
            default: break
            }
            let name = word.dropFirst(2).prefix { $0 != "=" }
            guard word.hasPrefix("--"), let option = command.options.first(where: { $0.long == name }) else {
                return .usageError("Unknown option '\(word)'", subcommand: chosen)
            }
            let inline = word.firstIndex(of: "=").map { String(word[word.index(after: $0)...]) }
            switch option.kind {
            case .flag:
                guard inline == nil else { return .usageError("'--\(name)' takes no value", subcommand: chosen) }
                parsed.values[option.long, default: []].append("")
            case .value, .repeating:
                let value: String
                if let inline {
                    value = inline
                } else if let next = words.first, !next.hasPrefix("-") || next == "-" {
                    value = next
                    words = words.dropFirst()
                } else {
                    return .usageError("Missing value for '\(option.label)'", subcommand: chosen)
                }
                if option.isInteger, Int(value) == nil {
                    return .usageError("The value '\(value)' is invalid for '\(option.label)'", subcommand: chosen)
                }
                if option.kind == .value { parsed.values[option.long] = [value] } else { parsed.values[option.long, default: []].append(value) }
            }
        }
        if let missing = command.options.first(where: { $0.isRequired && parsed.values[$0.long] == nil }) {
            return .usageError("Missing expected argument '\(missing.label)'", subcommand: chosen)
        }
        if parsed.positionals.count < command.positionals.count {
            return .usageError("Missing expected argument '<\(command.positionals[parsed.positionals.count].valueName)>'", subcommand: chosen)
        }
        if chosen == nil, !subcommands.isEmpty { return .help(help()) }
        return .run(parsed)
    }
}
