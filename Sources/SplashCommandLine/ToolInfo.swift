import SplashJSON

/// `--experimental-dump-help`: the command line as swift-argument-parser's `ToolInfoV0` JSON,
/// which its generate-manual plugin turns into the man page (`make man`, scripts/man.sh). The
/// same document swift-argument-parser wrote for these commands, `help` subcommand included, so
/// the pages read as those of the package's other commands.
extension CommandSpec {
    public func toolInfo() -> String {
        var json = JSONWriter(capacity: 16_384)
        json.object { json in
            json.key("command")
            info(&json, superCommands: [])
            json.key("serializationVersion")
            json.int(0)
        }
        return json.string
    }

    private func info(_ json: inout JSONWriter, superCommands: [String]) {
        json.object { json in
            json.key("abstract")
            json.string(abstract)
            json.key("arguments")
            json.array { json in
                for positional in positionals {
                    Self.argument(&json, kind: "positional", names: [], valueName: positional.valueName, help: positional.help, optional: false)
                }
                for option in options {
                    Self.argument(&json, kind: option.kind == .flag ? "flag" : "option", names: [("long", option.long)], valueName: option.long,
                                  help: option.help, discussion: option.discussion, defaultValue: option.defaultValue, optional: !option.isRequired,
                                  repeating: option.kind == .repeating, shown: !option.isHidden)
                }
                Self.version(&json)
                Self.help(&json)
            }
            json.key("commandName")
            json.string(name)
            if let defaultSubcommand {
                json.key("defaultSubcommand")
                json.string(defaultSubcommand)
            }
            if !discussion.isEmpty {
                json.key("discussion")
                json.string(discussion)
            }
            json.key("shouldDisplay")
            json.bool(!isHidden)
            if !subcommands.isEmpty {
                json.key("subcommands")
                json.array { json in
                    for sub in subcommands { sub.info(&json, superCommands: superCommands + [name]) }
                    Self.helpCommand(&json, superCommands: superCommands + [name])
                }
            }
            if !superCommands.isEmpty {
                json.key("superCommands")
                json.array { json in for name in superCommands { json.string(name) } }
            }
        }
    }

    /// swift-argument-parser's own `help` subcommand, as it describes it.
    private static func helpCommand(_ json: inout JSONWriter, superCommands: [String]) {
        json.object { json in
            json.key("abstract")
            json.string("Show subcommand help information.")
            json.key("arguments")
            json.array { json in
                argument(&json, kind: "positional", names: [], valueName: "subcommands", help: nil, optional: true, repeating: true)
                argument(&json, kind: "flag", names: [("short", "h"), ("long", "help"), ("longWithSingleDash", "help")], valueName: "help",
                         help: nil, optional: true, shown: false)
                version(&json)
            }
            json.key("commandName")
            json.string("help")
            json.key("shouldDisplay")
            json.bool(true)
            json.key("superCommands")
            json.array { json in for name in superCommands { json.string(name) } }
        }
    }

    private static func version(_ json: inout JSONWriter) {
        argument(&json, kind: "flag", names: [("long", "version")], valueName: "version", help: "Show the version.", optional: true)
    }

    private static func help(_ json: inout JSONWriter) {
        argument(&json, kind: "flag", names: [("short", "h"), ("long", "help")], valueName: "help", help: "Show help information.", optional: true)
    }

    private static func argument(
        _ json: inout JSONWriter, kind: String, names: [(kind: String, name: String)], valueName: String, help: String?,
        discussion: String = "", defaultValue: String? = nil, optional: Bool, repeating: Bool = false, shown: Bool = true
    ) {
        json.object { json in
            if let help, !help.isEmpty {
                json.key("abstract")
                json.string(help)
            }
            if let defaultValue {
                json.key("defaultValue")
                json.string(defaultValue)
            }
            if !discussion.isEmpty {
                json.key("discussion")
                json.string(discussion)
            }
            json.key("isOptional")
            json.bool(optional)
            json.key("isRepeating")
            json.bool(repeating)
            json.key("kind")
            json.string(kind)
            if !names.isEmpty {
                json.key("names")
                json.array { json in for name in names { nameInfo(&json, name) } }
            }
            json.key("parsingStrategy")
            json.string("default")
            // The long name where there is one.
            if let preferred = names.first(where: { $0.kind == "long" }) {
                json.key("preferredName")
                nameInfo(&json, preferred)
            }
            json.key("shouldDisplay")
            json.bool(shown)
            json.key("valueName")
            json.string(valueName)
        }
    }

    /// One of an argument's names: `{"kind": "long", "name": "theme"}`.
    private static func nameInfo(_ json: inout JSONWriter, _ name: (kind: String, name: String)) {
        json.object { json in
            json.key("kind")
            json.string(name.kind)
            json.key("name")
            json.string(name.name)
        }
    }
}
