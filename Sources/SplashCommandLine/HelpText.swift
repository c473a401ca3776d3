/// `--help`, laid out as swift-argument-parser lays it out (the other commands of the package
/// still use it): OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS, lines of at most 79 columns.
extension CommandSpec {
    static let width = 79
    static let labelColumn = 26

    /// The help of this command; `tool` is the tool's name when this is one of its subcommands.
    public func helpText(tool: String? = nil) -> String {
        var text = Self.wrap("OVERVIEW: " + abstract, indent: 0)
        if !discussion.isEmpty { text += "\n" + discussion.split(separator: "\n\n", omittingEmptySubsequences: true).map { Self.wrap(String($0), indent: 0) }.joined(separator: "\n") }
        text += "\nUSAGE: " + usage(tool: tool) + "\n"
        if !positionals.isEmpty {
            text += "\nARGUMENTS:\n" + positionals.map { Self.entry("<\($0.valueName)>", $0.help, discussion: "") }.joined()
        }
        text += "\nOPTIONS:\n"
        for option in options where !option.isHidden {
            let help = option.defaultValue.map { option.help + " (default: \($0))" } ?? option.help
            text += Self.entry(option.label, help, discussion: option.discussion)
        }
        text += Self.entry("--version", "Show the version.", discussion: "") + Self.entry("-h, --help", "Show help information.", discussion: "")
        let shown = subcommands.filter { !$0.isHidden }
        if !shown.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for sub in shown { text += Self.entry(sub.name == defaultSubcommand ? "\(sub.name) (default)" : sub.name, sub.abstract, discussion: "") }
            text += "\n  See '\(name) help <subcommand>' for detailed help.\n"
        } else {
            text += "\n"
        }
        return text
    }

    /// `splashd-kms screenshot <file.png> [--output <output>]`, or `splashd-kms <subcommand>`.
    public func usage(tool: String? = nil) -> String {
        let command = tool.map { "\($0) \(name)" } ?? name
        if tool == nil, !subcommands.isEmpty { return command + " <subcommand>" }
        let parts = positionals.map { "<\($0.valueName)>" } + options.filter { !$0.isHidden }.map { option in
            let label = option.kind == .repeating ? option.label + " ..." : option.label
            return option.isRequired ? label : "[\(label)]"
        }
        return ([command] + parts).joined(separator: " ")
    }

    /// One option, argument or subcommand: its label, its help from column 26 (on the next line
    /// when the label is longer), its discussion indented by 8.
    static func entry(_ label: String, _ help: String, discussion: String) -> String {
        var body = wrap(help, indent: labelColumn)
        let lead = "  " + label
        if lead.count < labelColumn {
            body = lead + String(repeating: " ", count: labelColumn - lead.count) + body.dropFirst(labelColumn)
        } else {
            body = lead + "\n" + body
        }
        if !discussion.isEmpty { body += wrap(discussion, indent: 8) }
        return body
    }

    /// `text` in lines of at most `width` columns (a longer word stands alone), each indented, each
    /// ending in a newline.
    static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, indent + line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines.map { pad + $0 + "\n" }.joined()
    }
}
