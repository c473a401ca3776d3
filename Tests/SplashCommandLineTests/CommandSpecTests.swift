import Foundation
import SplashCommandLine
import SplashJSON
import Testing
import TestSupport

/// The grammar the renderers' command lines use, held against a tool shaped like theirs: a
/// default subcommand, flags, repeated and whole-number options, a required option, a positional
/// argument, a hidden option and a hidden subcommand.
@Suite struct CommandSpecTests {
    static let tool = CommandSpec(
        name: "tool", abstract: "A tool.",
        subcommands: [
            CommandSpec(
                name: "run", abstract: "Run (the default).",
                options: [
                    OptionSpec("theme", help: "The theme.", completion: .directory),
                    OptionSpec("device", help: "The device.", defaultValue: "/dev/dri/card0", completion: .file),
                    OptionSpec("rotate", help: "The turn.", isInteger: true, completion: .list(["0", "90", "180", "270"])),
                    OptionSpec("output", .repeating, help: "An output.", discussion: "More about outputs."),
                    OptionSpec("dark", .flag, help: "Dark."),
                    OptionSpec("secret", help: "", isHidden: true),
                ]),
            CommandSpec(name: "check", abstract: "Check.", options: [OptionSpec("theme", help: "The theme.", isRequired: true, completion: .directory)]),
            CommandSpec(
                name: "shot", abstract: "A picture.", options: [OptionSpec("output", help: "One output.")],
                positionals: [PositionalSpec("file.png", help: "The file.", completion: .file)]),
            CommandSpec(name: "child", abstract: "Internal.", isHidden: true),
        ],
        defaultSubcommand: "run")

    static func run(_ arguments: [String]) -> ParsedCommand? {
        if case .run(let parsed) = tool.parse(arguments) { return parsed }
        return nil
    }

    static func error(_ arguments: [String]) -> String? {
        if case .usageError(let message, _) = tool.parse(arguments) { return message }
        return nil
    }

    @Test func theDefaultSubcommandTakesTheWordsWhenNoneIsNamed() throws {
        let parsed = try #require(Self.run(["--theme", "/t", "--dark", "--output", "A", "--output=B", "--rotate", "90"]))
        #expect(parsed.subcommand == "run")
        #expect(parsed.string("theme") == "/t" && parsed.flag("dark") && parsed.integer("rotate") == 90)
        #expect(parsed.strings("output") == ["A", "B"])
        #expect(parsed.string("device") == nil, "a default is the program's to apply")
        #expect(Self.run(["run", "--theme=/t"])?.string("theme") == "/t")
        #expect(Self.run([]) == ParsedCommand(subcommand: "run"))
        #expect(Self.run(["--theme", "a", "--theme", "b"])?.string("theme") == "b", "the last value counts")
        #expect(Self.run(["--secret", "x"])?.string("secret") == "x", "a hidden option is still taken")
        #expect(Self.run(["child"])?.subcommand == "child")
    }

    @Test func positionalsAndTheTerminator() throws {
        #expect(Self.run(["shot", "a.png", "--output", "HDMI-A-1"]) == ParsedCommand(subcommand: "shot", values: ["output": ["HDMI-A-1"]], positionals: ["a.png"]))
        #expect(Self.run(["shot", "--", "-odd.png"])?.positionals == ["-odd.png"])
        #expect(Self.run(["shot", "-"])?.positionals == ["-"])
    }

    @Test func aBadCommandLineSaysWhatIsWrong() {
        #expect(Self.error(["--bogus"]) == "Unknown option '--bogus'")
        #expect(Self.error(["-x"]) == "Unknown option '-x'")
        #expect(Self.error(["--theme"]) == "Missing value for '--theme <theme>'")
        #expect(Self.error(["--theme", "--dark"]) == "Missing value for '--theme <theme>'")
        #expect(Self.error(["--rotate", "ninety"]) == "The value 'ninety' is invalid for '--rotate <rotate>'")
        #expect(Self.error(["--dark=yes"]) == "'--dark' takes no value")
        #expect(Self.error(["check"]) == "Missing expected argument '--theme <theme>'")
        #expect(Self.error(["shot"]) == "Missing expected argument '<file.png>'")
        #expect(Self.error(["shot", "a.png", "b.png"]) == "Unexpected argument 'b.png'")
        #expect(Self.error(["stray"]) == "Unexpected argument 'stray'")
        #expect(Self.error(["check", "--dark"]) == "Unknown option '--dark'", "a subcommand takes only its own options")
        #expect(Self.error(["help", "nothing"]) == "Unknown subcommand 'nothing'")
        #expect(Self.error(["--generate-completion-script", "csh"]) != nil)
    }

    @Test func helpVersionDumpAndCompletionsAreAnswered() {
        #expect(Self.tool.parse(["--version"]) == .version)
        #expect(Self.tool.parse(["check", "--version"]) == .version)
        #expect(Self.tool.parse(["--help"]) == .help(Self.tool.helpText()))
        #expect(Self.tool.parse(["-h"]) == .help(Self.tool.helpText()))
        #expect(Self.tool.parse(["help"]) == .help(Self.tool.helpText()))
        let check = Self.tool.subcommand("check")!.helpText(tool: "tool")
        #expect(Self.tool.parse(["check", "--help"]) == .help(check))
        #expect(Self.tool.parse(["help", "check"]) == .help(check))
        #expect(Self.tool.parse(["--experimental-dump-help"]) == .dumpHelp)
        #expect(Self.tool.parse(["--generate-completion-script", "fish"]) == .completionScript("fish"))
    }

    @Test func theHelpListsWhatIsShownAndWraps() {
        let top = Self.tool.helpText()
        #expect(top.hasPrefix("OVERVIEW: A tool.\n\nUSAGE: tool <subcommand>\n"))
        #expect(top.contains("\n  run (default)           Run (the default).\n"))
        #expect(!top.contains("child"), "a hidden subcommand is not listed")
        #expect(top.hasSuffix("\n  See 'tool help <subcommand>' for detailed help.\n"))
        let run = Self.tool.subcommand("run")!.helpText(tool: "tool")
        #expect(run.contains("USAGE: tool run [--theme <theme>] [--device <device>] [--rotate <rotate>] [--output <output> ...] [--dark]\n"))
        #expect(run.contains("  --device <device>       The device. (default: /dev/dri/card0)\n"))
        #expect(run.contains("  --output <output>       An output.\n        More about outputs.\n"))
        #expect(!run.contains("secret"))
        #expect(Self.tool.subcommand("check")!.usage(tool: "tool") == "tool check --theme <theme>")
        let long = CommandSpec(name: "t", abstract: String(repeating: "word ", count: 40),
                               options: [OptionSpec("a-very-long-option-name", help: "Help.")]).helpText()
        #expect(long.split(separator: "\n").allSatisfy { $0.count < 80 })
        #expect(long.contains("  --a-very-long-option-name <a-very-long-option-name>\n                          Help.\n"))
    }

    /// What swift-argument-parser's generate-manual plugin decodes: ToolInfoV0.
    @Test func theDumpIsToolInfo() throws {
        let json = try JSONReader.value(of: Array(Self.tool.toolInfo().utf8))
        let root = try #require(json.objectValue)
        #expect(root["serializationVersion"] == 0)
        let command = try #require(root["command"]?.objectValue)
        #expect(command["commandName"] == "tool" && command["defaultSubcommand"] == "run")
        guard case .array(let subcommands) = command["subcommands"] else { Issue.record("no subcommands"); return }
        let names = subcommands.compactMap { $0.objectValue?["commandName"]?.stringValue }
        #expect(names == ["run", "check", "shot", "child", "help"])
        #expect(subcommands[3].objectValue?["shouldDisplay"] == false)
        #expect(subcommands[0].objectValue?["superCommands"] == .array(["tool"]))
        guard case .array(let arguments) = subcommands[0].objectValue?["arguments"] else { Issue.record("no arguments"); return }
        let device = try #require(arguments[1].objectValue)
        #expect(device["kind"] == "option" && device["defaultValue"] == "/dev/dri/card0" && device["valueName"] == "device")
        #expect(arguments[3].objectValue?["isRepeating"] == true && arguments[4].objectValue?["kind"] == "flag")
        #expect(arguments[5].objectValue?["shouldDisplay"] == false)
        let flags = arguments.suffix(2).compactMap { $0.objectValue?["valueName"]?.stringValue }
        #expect(flags == ["version", "help"])
    }

    /// The bash script, sourced in a real bash and asked as bash asks.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func bashCompletesSubcommandsOptionsAndValues() throws {
        let script = CompletionScript.script(for: Self.tool, shell: .bash)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = script + "\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tool; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
            let result = try ProcessRunner.run("/bin/bash", ["-c", program])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["tool", ""]).contains("check"))
        #expect(try complete(["tool", ""]).contains("--theme"), "the default subcommand's options at the top")
        #expect(!(try complete(["tool", ""]).contains("child")))
        #expect(try complete(["tool", "ch"]) == ["check"])
        #expect(try complete(["tool", "check", "--"]) == ["--theme", "--help"])
        #expect(try complete(["tool", "--rotate", "1"]) == ["180"])
        #expect(try complete(["tool", "run", "--dark", "--ou"]) == ["--output"])
        #expect(!(try complete(["tool", "--"]).contains("--secret")), "a hidden option is not offered")
        #expect(try complete(["tool", "shot", "--output", "x", "--"]) == ["--output", "--help"])
    }

    /// fish's own completion of a command line (`complete -C`), with the script loaded.
    @Test func fishCompletesSubcommandsOptionsAndValues() throws {
        let fish = "/usr/bin/fish"
        try #require(FileManager.default.isExecutableFile(atPath: fish), "fish is not installed (scripts/setup.sh tests installs it)")
        let script = CompletionScript.script(for: Self.tool, shell: .fish)
        func complete(_ line: String) throws -> [String] {
            let result = try ProcessRunner.run(fish, ["-c", script + "\ncomplete -C '\(line)'"], environment: ["HOME": "/tmp"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        #expect(try complete("tool ch") == ["check"])
        #expect(try complete("tool --rot") == ["--rotate"])
        #expect(try complete("tool --rotate ") == ["0", "90", "180", "270"])
        #expect(try complete("tool check --").sorted() == ["--help", "--theme"])
        #expect(!(try complete("tool --").contains("--secret")))
    }

    /// zsh's script hands `_arguments` the chosen command's specs, with the words from the
    /// subcommand on (a stand-in `_arguments` prints what it was given).
    @Test func zshHandsTheChosenCommandsSpecsToArguments() throws {
        let zsh = "/usr/bin/zsh"
        try #require(FileManager.default.isExecutableFile(atPath: zsh), "zsh is not installed (scripts/setup.sh tests installs it)")
        let script = CompletionScript.script(for: Self.tool, shell: .zsh)
        func arguments(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = script.replacingOccurrences(of: "\n_tool \"$@\"\n", with: "\n")
                + "_arguments() { print -l -- \"$@\" \"words=$words\" }\nwords=(\(quoted)); CURRENT=\(words.count); _tool\n"
            let result = try ProcessRunner.run(zsh, ["-f", "-c", program])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        let check = try arguments(["tool", "check", "--theme", "x", ""])
        #expect(check.contains("--theme=[The theme.]:theme:_files -/") && check.last == "words=check --theme x ")
        #expect(!check.contains { $0.hasPrefix("--device") })
        let top = try arguments(["tool", ""])
        #expect(top.contains("--rotate=[The turn.]:rotate:(0 90 180 270)") && top.contains("*--output=[An output.]:output: "))
        #expect(top.contains("1:subcommand:(run check shot)"))
        let syntax = try ProcessRunner.run(zsh, ["-n", "-c", script])
        #expect(syntax.status == 0, "\(syntax.stderr)")
    }

    @Test func everyShellGetsAScriptNamingEveryShownOption() {
        for shell in CompletionScript.Shell.allCases {
            let script = CompletionScript.script(for: Self.tool, shell: shell)
            for word in ["tool", "check", "shot", "--theme", "--device", "--rotate", "--output", "--dark"] {
                #expect(script.contains(word.hasPrefix("--") && shell == .fish ? "-l \(word.dropFirst(2))" : word), "\(shell): \(word)")
            }
            #expect(!script.contains("secret") && !script.contains("child"), "\(shell)")
        }
    }
}
