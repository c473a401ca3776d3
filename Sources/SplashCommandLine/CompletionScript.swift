/// `--generate-completion-script bash|zsh|fish`: what `make install` puts in each shell's
/// completion directory. Subcommands where a subcommand may come, each command's options (the
/// default subcommand's at the top too), and for an option's value what its `CompletionKind`
/// says: files, directories, or its words.
public enum CompletionScript {
    public enum Shell: String, Sendable, CaseIterable {
        case bash, zsh, fish
    }

    public static func script(for spec: CommandSpec, shell: Shell) -> String {
        switch shell {
        case .bash: bash(spec)
        case .zsh: zsh(spec)
        case .fish: fish(spec)
        }
    }

    /// The commands a word can name, with the options each takes: the tool itself (named ""),
    /// whose options are its default subcommand's, then each shown subcommand.
    static func commands(_ spec: CommandSpec) -> [(name: String, spec: CommandSpec)] {
        let top = spec.defaultSubcommand.flatMap(spec.subcommand) ?? spec
        return [("", top)] + spec.subcommands.filter { !$0.isHidden }.map { ($0.name, $0) }
    }

    /// A shell function's name for the tool: `splashd-kms` → `_splashd_kms`.
    static func function(_ spec: CommandSpec) -> String {
        "_" + String(spec.name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    static func bash(_ spec: CommandSpec) -> String {
        let names = spec.subcommands.filter { !$0.isHidden }.map(\.name)
        var script = """
            # bash completion for \(spec.name), written by `\(spec.name) --generate-completion-script bash`.
            \(function(spec))() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command= word

            """
        if !names.isEmpty {
            script += """
                    for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                        case $word in
                        \(names.joined(separator: "|"))) command=$word; break ;;
                        esac
                    done

                """
        }
        script += "    case $command/$prev in\n"
        for (name, command) in commands(spec) {
            for option in command.options where !option.isHidden && option.kind != .flag {
                let reply = switch option.completion {
                case .none: "return"
                case .file: "COMPREPLY=($(compgen -f -- \"$cur\")); return"
                case .directory: "COMPREPLY=($(compgen -d -- \"$cur\")); return"
                case .list(let words): "COMPREPLY=($(compgen -W \(shellQuoted(words.joined(separator: " "))) -- \"$cur\")); return"
                }
                script += "    \(name)/--\(option.long)) \(reply) ;;\n"
            }
        }
        script += "    esac\n    case $command in\n"
        for (name, command) in commands(spec) {
            var words = command.options.filter { !$0.isHidden }.map { "--" + $0.long } + ["--help"]
            if name.isEmpty { words = names + words + ["--version"] }
            let positional = command.positionals.first.map { $0.completion == .directory ? "compgen -d" : "compgen -f" }
            let files = positional.map { "; [[ $cur == -* ]] || COMPREPLY+=($(\($0) -- \"$cur\"))" } ?? ""
            script += "    \(name.isEmpty ? "\"\"" : name)) COMPREPLY=($(compgen -W \(shellQuoted(words.joined(separator: " "))) -- \"$cur\"))\(files) ;;\n"
        }
        script += "    esac\n}\ncomplete -o filenames -F \(function(spec)) \(spec.name)\n"
        return script
    }

    static func zsh(_ spec: CommandSpec) -> String {
        let names = spec.subcommands.filter { !$0.isHidden }
        var script = """
            #compdef \(spec.name)
            # zsh completion for \(spec.name), written by `\(spec.name) --generate-completion-script zsh`.
            \(function(spec))() {
                local command= i

            """
        if !names.isEmpty {
            script += """
                    for (( i = 2; i < CURRENT; i++ )); do
                        case $words[i] in
                        (\(names.map(\.name).joined(separator: "|"))) command=$words[i]; break ;;
                        esac
                    done
                    if [[ -n $command ]]; then
                        words=("${(@)words[i,-1]}")
                        (( CURRENT -= i - 1 ))
                    fi

                """
        }
        script += "    case $command in\n"
        for (name, command) in commands(spec) {
            // Each an argument of `_arguments`, quoted for the shell.
            var specs = command.options.filter { !$0.isHidden }.map { shellQuoted(zshSpec($0)) }
            specs += command.positionals.map { shellQuoted(":\(zshEscaped($0.help)):\(zshAction($0.completion))") }
            specs.append("'(- *)'{-h,--help}'[Show help information.]'")
            if name.isEmpty {
                specs.append("'(- *)--version[Show the version.]'")
                if !names.isEmpty { specs.append(shellQuoted("1:subcommand:(\(names.map(\.name).joined(separator: " ")))")) }
            }
            script += "    (\(name.isEmpty ? "''" : name)) _arguments -s \\\n"
            script += specs.map { "        \($0)" }.joined(separator: " \\\n") + " ;;\n"
        }
        script += "    esac\n}\n\(function(spec)) \"$@\"\n"
        return script
    }

    static func zshSpec(_ option: OptionSpec) -> String {
        let help = "[\(zshEscaped(option.help))]"
        switch option.kind {
        case .flag: return "--\(option.long)\(help)"
        case .value: return "--\(option.long)=\(help):\(option.long):\(zshAction(option.completion))"
        case .repeating: return "*--\(option.long)=\(help):\(option.long):\(zshAction(option.completion))"
        }
    }

    static func zshAction(_ kind: CompletionKind) -> String {
        switch kind {
        case .none: " "
        case .file: "_files"
        case .directory: "_files -/"
        case .list(let words): "(\(words.joined(separator: " ")))"
        }
    }

    /// Help text inside `[...]` of an `_arguments` spec: brackets and colons escaped.
    static func zshEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\[]:".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    static func fish(_ spec: CommandSpec) -> String {
        let names = spec.subcommands.filter { !$0.isHidden }
        var lines = ["# fish completion for \(spec.name), written by `\(spec.name) --generate-completion-script fish`.", "complete -c \(spec.name) -f"]
        let all = names.map(\.name).joined(separator: " ")
        for sub in names {
            lines.append("complete -c \(spec.name) -n \(shellQuoted("not __fish_seen_subcommand_from \(all)")) -a \(sub.name) -d \(shellQuoted(sub.abstract))")
        }
        lines.append("complete -c \(spec.name) -l help -s h -d 'Show help information.'")
        lines.append("complete -c \(spec.name) -n \(shellQuoted("not __fish_seen_subcommand_from \(all)")) -l version -d 'Show the version.'")
        for (name, command) in commands(spec) {
            let condition = name.isEmpty ? (names.isEmpty ? "" : "not __fish_seen_subcommand_from \(all)") : "__fish_seen_subcommand_from \(name)"
            let when = condition.isEmpty ? "" : " -n \(shellQuoted(condition))"
            for option in command.options where !option.isHidden {
                var line = "complete -c \(spec.name)\(when) -l \(option.long)"
                if option.kind != .flag {
                    switch option.completion {
                    case .none: line += " -x"
                    case .file: line += " -r -F"
                    case .directory: line += " -x -a '(__fish_complete_directories)'"
                    case .list(let words): line += " -x -a \(shellQuoted(words.joined(separator: " ")))"
                    }
                }
                lines.append(line + " -d \(shellQuoted(option.help))")
            }
            if let positional = command.positionals.first {
                lines.append("complete -c \(spec.name)\(when) -F -d \(shellQuoted(positional.help))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` in single quotes, for any of the three shells.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
