import Foundation
import SplashClient
import SplashCore
import SplashJSON
import Testing
import TestSupport

/// Issue 12: text logs could be forged. An `action` name with a newline and escape codes made a
/// line `2026-01-01T00:00:00.000Z critical FORGED root login` and raw terminal escapes; plugin
/// output went through the same path.
@MainActor @Suite struct LogForgeryChaosTests {
    /// What a client or a plugin sends: a line break, a fake record, terminal escapes, a carriage
    /// return, a C1 CSI, a right-to-left override.
    static let forged = "x\n2026-01-01T00:00:00.000Z critical FORGED root login \u{1B}[31mred\u{1B}[0m\rover\u{9B}2J\u{202E}desrever"

    static let config = TestConfig.splash(exitAnimation: "10ms") + """
        [[step]]
        id = "hold"
        plugin = "signal"

        [[step]]
        id = "actions"
        plugin = "quick-action"
        after = ["hold"]
        critical = false
        [step.options]
        scheme = "kiosk"
        routes = ["home"]

        [[step]]
        id = "noisy"
        plugin = "noisy"
        after = ["hold"]
        """

    /// A plugin writing the forged text to stderr and, as a non-protocol line, to stdout.
    static func plugins(in directory: TemporaryDirectory) throws -> ScriptPlugins {
        let plugins = try ScriptPlugins(in: directory)
        try plugins.add("noisy", #"""
            printf 'err: x\r2026-01-01T00:00:00.000Z critical FORGED root login \033[31mred\033[0m\302\233\342\200\256\n' >&2
            printf 'out: x\r2026-01-01T00:00:00.000Z critical FORGED root login \033[31mred\033[0m\n'
            """#)
        return plugins
    }

    /// Runs a launch in which the forged text arrives as an `action` and an `open` while loading,
    /// from a plugin's stderr and stdout, and as an `action` after `finished`; returns the daemon.
    static func runForgedLaunch(logFormat: String, in directory: TemporaryDirectory) throws -> DaemonProcess {
        let plugins = try Self.plugins(in: directory)
        let daemon = try DaemonProcess(
            config: config, pluginDirectories: [plugins.directory], extraArguments: ["--log-format", logFormat]
        )
        let client = try daemon.connect()
        _ = try client.follow(timeout: .seconds(10)) { state, _ in state.phase != .loading }
        #expect(try client.request(.action(name: forged)) == .ok(id: 2))
        _ = try client.request(.open(url: "kiosk://" + forged))
        #expect(try client.request(.complete(step: "hold")) == .ok(id: 4))
        _ = try client.follow(timeout: .seconds(20)) { state, _ in state.phase != .finished }
        _ = try client.request(.action(name: forged))
        // The action while loading, the link, stderr, stdout, the action after finished.
        #expect(daemon.waitForLog("FORGED", count: 5), "\(daemon.log)")
        return daemon
    }

    /// The whole log of a forged launch in `format`, once the daemon stopped; checks that no raw
    /// ESC, CR, DEL, CSI (U+009B) or right-to-left override reached it.
    static func loggedText(format: String, in directory: TemporaryDirectory) throws -> String {
        let daemon = try runForgedLaunch(logFormat: format, in: directory)
        #expect(daemon.stop() == 0)
        let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: daemon.logPath))) ?? Data())
        for forbidden: UInt8 in [0x1B, 0x0D, 0x7F] {
            #expect(!bytes.contains(forbidden), "byte \(forbidden) in the log")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E })
        return text
    }

    @Test func textLogLinesCannotBeForgedOrCarryEscapes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = try Self.loggedText(format: "text", in: directory)
        let timestamp = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (trace|debug|info|notice|warning|error|critical) /#
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for line in lines {
            #expect(line.prefixMatch(of: timestamp) != nil, "not a record of the daemon: \(line)")
            #expect(!line.contains(#/^\S+ critical FORGED/#))
        }
        #expect(text.hasSuffix("\n"))
        let forgedLines = lines.filter { $0.contains("FORGED") }
        #expect(forgedLines.count >= 5)
        #expect(forgedLines.allSatisfy { $0.contains(#"\x1b[31m"#) }, "escaped as documented: \(forgedLines)")
        #expect(forgedLines.contains { $0.contains(#"x\n2026-01-01T00:00:00.000Z critical FORGED"#) })
        #expect(forgedLines.contains { $0.contains(#"\u009b"#) && $0.contains(#"\u202e"#) })
    }

    @Test func jsonLogLinesAreOneObjectEachAndKeepTheTextExactly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = try Self.loggedText(format: "json", in: directory)
        var messages: [String] = []
        for line in text.split(separator: "\n") {
            guard let object = try? JSONValue.parse(Array(line.utf8)).objectValue, let message = object["message"]?.stringValue else {
                Issue.record("not a JSON record: \(line)")
                continue
            }
            messages.append(message)
        }
        // Read back, the values are what was sent.
        #expect(messages.contains { $0.contains(Self.forged) })
        #expect(messages.contains { $0.contains("\u{1B}[31mred\u{1B}[0m\u{9B}\u{202E}") })
    }
}
