/// A command line described as data: its subcommands, options, positional arguments and their
/// help. One table gives the parser, `--help`, `--version`, the man page's source
/// (`--experimental-dump-help`, which swift-argument-parser's generate-manual plugin reads) and
/// the shell completions (`--generate-completion-script`).
///
/// For the renderers (`splashd-kms`, `splashd-web`), which would otherwise link
/// swift-argument-parser and, through it, FoundationEssentials: about 3.3 MB of each binary for
/// a dozen options (docs/benchmarks.md, "Package sizes"). The grammar is the part of
/// swift-argument-parser's that they use: `--name value`, `--name=value`, flags, repeated
/// options, one level of subcommands with a default one, positional arguments, `--`.
public struct CommandSpec: Sendable {
    /// The name typed: the tool's, or the subcommand's.
    public var name: String
    /// One sentence: the help's OVERVIEW and the subcommand list's line.
    public var abstract: String
    /// More, after the overview (paragraphs separated by blank lines).
    public var discussion: String
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]
    public var subcommands: [CommandSpec]
    /// The subcommand run when the first word names none (its options are taken at the top).
    public var defaultSubcommand: String?
    /// Left out of the help and the completions (a command only the tool itself runs).
    public var isHidden: Bool

    public init(
        name: String, abstract: String, discussion: String = "", options: [OptionSpec] = [], positionals: [PositionalSpec] = [],
        subcommands: [CommandSpec] = [], defaultSubcommand: String? = nil, isHidden: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
        self.isHidden = isHidden
    }

    /// The subcommand called `name`.
    public func subcommand(_ name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// What a shell offers for an option's value or a positional argument.
public enum CompletionKind: Sendable, Equatable {
    /// Nothing (a name only the system knows, a number).
    case none
    case file
    case directory
    /// One of these words.
    case list([String])
}

/// A `--long` option: a flag, or one that takes a value.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        /// `--dark`: present or not.
        case flag
        /// `--theme DIR`, or `--theme=DIR`; the last one given counts.
        case value
        /// `--output NAME`, as many times as wanted, each kept in order.
        case repeating
    }

    /// The name without its dashes; also the value's name in the help (`--theme <theme>`).
    public var long: String
    public var kind: Kind
    public var help: String
    /// Printed under the option in the help, and in the man page.
    public var discussion: String
    /// What the help says is taken when the option is not given (the program applies it).
    public var defaultValue: String?
    /// The command refuses to run without it.
    public var isRequired: Bool
    /// The value must be a whole number (`--rotate 90`).
    public var isInteger: Bool
    public var completion: CompletionKind
    /// Taken, but left out of the help and the completions.
    public var isHidden: Bool

    public init(
        _ long: String, _ kind: Kind = .value, help: String, discussion: String = "", defaultValue: String? = nil, isRequired: Bool = false,
        isInteger: Bool = false, completion: CompletionKind = .none, isHidden: Bool = false
    ) {
        self.long = long
        self.kind = kind
        self.help = help
        self.discussion = discussion
        self.defaultValue = defaultValue
        self.isRequired = isRequired
        self.isInteger = isInteger
        self.completion = completion
        self.isHidden = isHidden
    }

    /// `--theme <theme>`, or `--dark`.
    public var label: String { kind == .flag ? "--\(long)" : "--\(long) <\(long)>" }
}

/// A bare word on the command line (`screenshot FILE`); every one declared is required.
public struct PositionalSpec: Sendable {
    /// Its name in the help: `<file.png>`.
    public var valueName: String
    public var help: String
    public var completion: CompletionKind

    public init(_ valueName: String, help: String, completion: CompletionKind = .none) {
        self.valueName = valueName
        self.help = help
        self.completion = completion
    }
}
