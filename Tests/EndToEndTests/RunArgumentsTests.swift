import ArgumentParser
import SplashDaemon
@testable import splashd
import Testing
import TestSupport

/// `splashd` reads its usual run command line without swift-argument-parser (`RunArguments`) and
/// leaves the rest to the parser. The two must agree on everything the fast reader accepts.
@MainActor @Suite struct RunArgumentsTests {
    /// What swift-argument-parser makes of `arguments`, as `RunArguments`; nil when it is not a
    /// run command or does not parse.
    static func parsedByArgumentParser(_ arguments: [String]) -> RunArguments? {
        guard let command = try? Splashd.parseAsRoot(arguments), let run = command as? Splashd.Run else { return nil }
        return RunArguments(
            config: run.common.config,
            socket: run.socket,
            stateDirectory: run.stateDirectory,
            pluginDirectories: run.common.pluginDirectories,
            logFormat: run.logFormat,
            verbose: run.verbose
        )
    }

    nonisolated static let accepted: [[String]] = [
        [],
        ["run"],
        ["--config", "/etc/splashd/splashd.toml"],
        ["run", "--config", "a.toml", "--socket", "/run/s.sock", "--state-dir", "/var/lib/x"],
        ["--log-format", "journal"],
        ["--log-format", "json", "--verbose"],
        ["--verbose", "--log-format", "text", "--config", "c.toml"],
        ["--plugin-dir", "/a", "--plugin-dir", "/b", "--config", "c.toml"],
        ["--config", ""],
        ["--config", "with space.toml", "--socket", "relative.sock"],
    ]

    @Test(arguments: accepted)
    func theFastReaderAgreesWithTheArgumentParser(arguments: [String]) throws {
        let fast = try #require(RunArguments.parse(arguments))
        #expect(fast == Self.parsedByArgumentParser(arguments))
    }

    /// Everything else goes to the parser: help, version, check, `=` forms, unknown, repeated or
    /// malformed options.
    nonisolated static let deferred: [[String]] = [
        ["--help"], ["-h"], ["--version"], ["help"], ["run", "--help"],
        ["check"], ["check", "--config", "a.toml"],
        ["--config=a.toml"],
        ["--config"], ["--config", "--verbose"], ["--socket", "-"],
        ["--config", "a", "--config", "b"], ["--verbose", "--verbose"],
        ["--log-format", "xml"], ["--log-format", "JSON"],
        ["--bogus"], ["-v"], ["stray"], ["run", "run"], ["--", "--config", "a"],
    ]

    @Test(arguments: deferred)
    func everythingElseIsLeftToTheArgumentParser(arguments: [String]) {
        #expect(RunArguments.parse(arguments) == nil)
    }

    /// What the parser makes of the deferred forms that are valid run commands: the same as the
    /// fast reader would have, had it taken them.
    @Test func theParserStillReadsTheFormsTheFastReaderLeaves() {
        #expect(Self.parsedByArgumentParser(["--config=a.toml"]) == RunArguments(config: "a.toml"))
        #expect(Self.parsedByArgumentParser(["--log-format", "xml"]) == nil)
        #expect(Self.parsedByArgumentParser(["--config", "--verbose"]) == nil)
    }

    /// The binary: a bad option still gets the parser's message and exit code, and help still
    /// lists the run options.
    @Test func theBinaryStillReportsBadOptionsThroughTheParser() throws {
        let bad = try ProcessRunner.run(Binaries.splashd, ["--log-format", "xml"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("log-format"))
        let help = try ProcessRunner.run(Binaries.splashd, ["run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--state-dir"))
    }
}
