import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// Issue 48, item 11: C1 controls, the line and paragraph separators, bidirectional overrides and
/// a thousand newlines, from a real plugin process (its message, its label, its error output),
/// psplash's FIFO and `splashctl update`, reach a real subscriber cleaned to the theme's rule
/// (`DisplayText`): line breaks as one space, the rest dropped.
@MainActor @Suite final class StateTextEndToEndTests {
    /// Kept for the test's length (a directory goes with its value).
    var directories: [TemporaryDirectory] = []

    /// Whether `text` holds a character no shown text may hold (written out here, not taken
    /// from the rule under test): C0, DEL, C1, U+2028–U+202E, U+2066–U+2069.
    nonisolated static func isDirty(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            switch $0.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    /// Every text `state` shows, with where it is.
    nonisolated static func texts(of state: StateMessage) -> [(String, String)] {
        var texts: [(String, String?)] = [("message", state.message), ("error.message", state.error?.message),
                                          ("error.detail", state.error?.detail), ("update.message", state.update?.message),
                                          ("update.error", state.update?.error)]
        for step in state.steps { texts += [("\(step.id).label", step.label), ("\(step.id).reason", step.reason)] }
        return texts.compactMap { name, text in text.map { (name, $0) } }
    }

    /// The dirty texts of `state`, for a failure's message.
    nonisolated static func dirty(_ state: StateMessage) -> [String] {
        texts(of: state).filter { isDirty($0.1) }.map { "\($0.0): \($0.1.unicodeScalars.prefix(40).map { String($0.value, radix: 16) })" }
    }

    /// The bytes of the hostile texts: every kind the rule refuses.
    static let hostileTail = "\u{85}in\u{2028}now\u{202E}\u{1B}[2J\u{9B}"

    @Test func aPluginsMessageLabelAndErrorOutputReachSubscribersClean() throws {
        let dir = try TemporaryDirectory()
        directories.append(dir)
        let plugins = try ScriptPlugins(in: dir)
        let go = dir.file("go")
        try #require(mkfifo(go, 0o600) == 0)
        // As a plugin writes them: the message a JSON line (its escapes are the characters
        // themselves), its error output raw bytes.
        let message = #"{"message":"Signing\u0085in\u2028now\u202e\u001b[2J\u009b"# + String(repeating: #"\n"#, count: 1000)
            + #"done\u2029"}"#
        _ = try dir.write("message.json", message + "\n")
        _ = try dir.write("stderr.txt", "disk\u{85}full\u{202E}\u{1B}[31m\u{2028}end\u{2067}\u{9B}\n")
        try plugins.add("hostile", """
            cat '\(dir.file("message.json"))'
            read -r _ < '\(go)'
            cat '\(dir.file("stderr.txt"))' >&2
            exit 1
            """)
        let daemon = try DaemonProcess(
            config: TestConfig.instantSplash + #"""
                timeout = "10m"

                [[step]]
                id = "hostile"
                plugin = "hostile"
                label = "Sign\u2028in\u202E\u0085 now\n"
                """#,
            pluginDirectories: [plugins.directory]
        )
        let renderer = try daemon.connect()
        var seen: [StateMessage] = []
        let said = try renderer.follow(timeout: eventDeadline * waitScale) { state, _ in
            seen.append(state)
            return state.message?.hasPrefix("Signing") != true
        }
        #expect(said.message == "Signing in now[2J done")
        #expect(said.steps.first?.label == "Sign in now")
        // The plugin fails with its error output.
        let writer = open(go, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        #expect(Foundation.write(writer, "go\n", 3) == 3)
        close(writer)
        let failed = try renderer.follow(timeout: eventDeadline * waitScale) { state, _ in
            seen.append(state)
            return state.phase != .error
        }
        #expect(failed.error?.message == "Sign in now failed")
        #expect(failed.error?.detail?.hasSuffix("disk full[31m end") == true, "\(failed.error?.detail ?? "-")")
        #expect(failed.steps.first?.reason == failed.error?.detail)
        for state in seen { #expect(Self.dirty(state).isEmpty, "state \(state.seq): \(Self.dirty(state))") }
        #expect(daemon.stop() == 0)
    }

    /// A daemon reading psplash's FIFO in its own directory, its launch held by a `signal` step.
    func updateDaemon() throws -> (DaemonProcess, fifo: String) {
        let directory = try TemporaryDirectory()
        directories.append(directory)
        let daemon = try DaemonProcess(config: UpdateModeEndToEndTests.config(endView: "10m"), environment: ["PSPLASH_FIFO_DIR": directory.path])
        let fifo = directory.file("psplash_fifo")
        #expect(daemon.waitForLog("reading psplash's FIFO \(fifo)"), "\(daemon.log)")
        return (daemon, fifo)
    }

    @Test func psplashsMSGReachesSubscribersClean() throws {
        let (daemon, fifo) = try updateDaemon()
        let renderer = try daemon.connect()
        // A newline ends a FIFO command: the rest of the rule's characters, as one writer's bytes.
        let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0, "the FIFO has a reader")
        let bytes = Array("MSG Copying\(Self.hostileTail)\r\timage\u{2029}\u{2066}.\0".utf8)
        #expect(bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == bytes.count)
        close(fd)
        var seen: [StateMessage] = []
        let update = try renderer.follow(timeout: eventDeadline * waitScale) { state, _ in
            seen.append(state)
            return state.update?.message == nil
        }
        #expect(update.update?.message == "Copying in now[2J image .")
        for state in seen { #expect(Self.dirty(state).isEmpty, "state \(state.seq): \(Self.dirty(state))") }
        #expect(daemon.stop() == 0)
    }

    @Test func splashctlUpdatesMessageAndErrorReachSubscribersClean() throws {
        let (daemon, _) = try updateDaemon()
        let renderer = try daemon.connect()
        func splashctl(_ arguments: String...) throws -> CommandResult {
            try ProcessRunner.run(Binaries.splashctl, ["--socket", daemon.socketPath] + arguments)
        }
        let lines = String(repeating: "\n", count: 1000)
        #expect(try splashctl("update", "--progress", "40", "--message", "Copying\(Self.hostileTail)\(lines)image\u{2069}").status == 0)
        var seen: [StateMessage] = []
        let running = try renderer.follow(timeout: eventDeadline * waitScale) { state, _ in
            seen.append(state)
            return state.update?.message == nil
        }
        #expect(running.update?.message == "Copying in now[2J image")
        #expect(try splashctl("update", "--failed", "disk\u{85}full\(lines)\u{202E}\u{1B}[31m").status == 0)
        let failed = try renderer.follow(timeout: eventDeadline * waitScale) { state, _ in
            seen.append(state)
            return state.update?.result != .failed
        }
        #expect(failed.update?.error == "disk full [31m")
        for state in seen { #expect(Self.dirty(state).isEmpty, "state \(state.seq): \(Self.dirty(state))") }
        #expect(daemon.stop() == 0)
    }
}
