import Foundation
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// The real daemon logging to a real systemd-journald (see `JournaldSandbox`).
@MainActor @Suite(.serialized) struct JournaldEndToEndTests {
    /// A one-step launch that finishes by itself: the plugin writes to stderr and exits 0.
    private static let config = TestConfig.instantSplash + """
        [[step]]
        id = "greet"
        plugin = "chatty"
        label = "Greeting"
        """

    /// Starts splashd, waits for the launch to finish, stops splashd with SIGTERM.
    private static let runDaemon = #"""
        work=$1
        : >"$work/splashd.out"
        if [ "$JOURNAL_STREAM_OF" = stderr ]; then export JOURNAL_STREAM=$(stat -c %d:%i "$work/splashd.out"); fi
        if [ "$JOURNAL_STREAM_OF" = other ]; then export JOURNAL_STREAM=$(stat -c %d:%i "$work/splashd.toml"); fi
        "$SPLASHD" --log-format "$LOG_FORMAT" --verbose --config "$work/splashd.toml" --socket "$work/splashd.sock" \
            --state-dir "$work/state" --plugin-dir "$work/plugins" >"$work/splashd.out" 2>&1 &
        splashd=$!
        deadline=$((SECONDS + 20))
        until "$SPLASHCTL" --socket "$work/splashd.sock" ping >/dev/null 2>&1; do
            if ! kill -0 "$splashd" 2>/dev/null; then echo "splashd exited:" >&2; cat "$work/splashd.out" >&2; exit 4; fi
            if [ "$SECONDS" -ge "$deadline" ]; then echo "splashd did not serve in 20s" >&2; kill -KILL "$splashd"; exit 4; fi
            sleep 0.05
        done
        "$SPLASHCTL" --socket "$work/splashd.sock" wait finished --timeout 20s || { kill -KILL "$splashd"; exit 5; }
        kill -TERM "$splashd"
        status=0
        wait "$splashd" || status=$?
        echo "splashd exited with $status"
        exit "$status"
        """#

    private static func prepare() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(prefix: "splashd-journal")
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("chatty", """
            echo "chatty plugin says hello on stderr" >&2
            echo '{"progress":0.5}'
            """)
        try dir.write("splashd.toml", config)
        try FileManager.default.createDirectory(atPath: dir.file("state"), withIntermediateDirectories: true)
        return dir
    }

    /// The body's environment: the binaries, `--log-format`, and what `JOURNAL_STREAM` names
    /// (`stderr`, `other` (a file that is not stderr), or `none`).
    private static func environment(logFormat: String = "journal", journalStreamOf: String = "none") -> [String: String] {
        [
            "SPLASHD": Binaries.splashd, "SPLASHCTL": Binaries.splashctl, "SWIFT_BACKTRACE": "enable=no",
            "LOG_FORMAT": logFormat, "JOURNAL_STREAM_OF": journalStreamOf,
        ]
    }

    @Test func launchRecordsReachTheJournalWithStructuredFields() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Binaries.splashd), "build splashd first")
        let dir = try Self.prepare()
        defer { dir.remove() }
        let outcome = try JournaldSandbox.run(Self.runDaemon, in: dir, environment: Self.environment())
        try #require(outcome.status == 0, "\(outcome.output)\n\(dir.read("splashd.out") ?? "")")
        // Every record went to the journal: nothing fell back to stderr.
        #expect(dir.read("splashd.out") == "", "splashd wrote to stderr")

        let ours = outcome.entries.filter { $0["SYSLOG_IDENTIFIER"] == "splashd" }
        try #require(!ours.isEmpty, "no splashd entries in:\n\(outcome.entries.map(\.description).joined(separator: "\n"))")
        for entry in ours {
            #expect(entry["CODE_FILE"]?.hasSuffix(".swift") == true, "\(entry)")
            #expect(entry["CODE_LINE"].flatMap(Int.init) != nil, "\(entry)")
            #expect(entry["CODE_FUNC"]?.isEmpty == false, "\(entry)")
            #expect(entry["PRIORITY"].flatMap(Int.init).map { (2...7).contains($0) } == true, "\(entry)")
            #expect(entry["_TRANSPORT"] == "journal", "\(entry)")
        }

        func entries(_ kind: LaunchLogEvent) -> [JournalEntry] { ours.filter { $0["MESSAGE_ID"] == kind.messageID } }
        let started = try #require(entries(.launchStarted).first)
        let launch = try #require(started["SPLASHD_LAUNCH"])
        #expect(!launch.isEmpty)
        #expect(started["PRIORITY"] == "6")

        let finishedStep = try #require(entries(.stepFinished).first)
        #expect(finishedStep["SPLASHD_STEP"] == "greet")
        #expect(finishedStep["SPLASHD_ATTEMPT"] == "1")
        #expect(finishedStep["SPLASHD_LAUNCH"] == launch)
        #expect(finishedStep["SPLASHD_DURATION_MS"].flatMap(Int.init) != nil)
        #expect(finishedStep["SPLASHD_EVENT"] == LaunchLogEvent.stepFinished.rawValue)
        #expect(finishedStep["CODE_FILE"] == "SplashDaemon/LaunchLog.swift")

        let phases = entries(.phaseChanged).compactMap { $0["SPLASHD_PHASE"] }
        #expect(phases.contains(Phase.dismissing.rawValue), "\(phases)")
        #expect(entries(.phaseChanged).allSatisfy { $0["SPLASHD_LAUNCH"] == launch })

        let finished = try #require(entries(.launchFinished).first)
        #expect(finished["SPLASHD_PHASE"] == "finished")
        #expect(finished["SPLASHD_DURATION_MS"].flatMap(Int.init) != nil)
        #expect(finished["SPLASHD_SCREEN"] == "home")
        #expect(finished["SPLASHD_LAUNCH"] == launch)
        #expect(entries(.stepFailed).isEmpty)

        // The plugin's stderr line, with the step it belongs to.
        let pluginLine = try #require(ours.first { $0["MESSAGE"] == "chatty plugin says hello on stderr" })
        #expect(pluginLine["SPLASHD_STEP"] == "greet")
        #expect(pluginLine["SPLASHD_PLUGIN"] == "chatty")
        #expect(pluginLine["SPLASHD_STREAM"] == "stderr")
        #expect(pluginLine["SPLASHD_LAUNCH"] == launch)
    }

    @Test func withoutAJournalEveryRecordStillReachesStderr() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Binaries.splashd), "build splashd first")
        let dir = try Self.prepare()
        defer { dir.remove() }
        let outcome = try JournaldSandbox.run(
            Self.runDaemon, in: dir, environment: Self.environment(), startJournald: false
        )
        try #require(outcome.status == 0, "\(outcome.output)\n\(dir.read("splashd.out") ?? "")")
        let lines = (dir.read("splashd.out") ?? "").split(separator: "\n")
        let reasons = lines.filter { $0.contains("not sent to the journal") }
        #expect(reasons.count == 1, "the reason is given once:\n\(lines.joined(separator: "\n"))")
        #expect(reasons.first?.contains("no journal socket at /run/systemd/journal/socket") == true)
        #expect(lines.contains { $0.hasPrefix("splashd: info launch started") })
        #expect(lines.contains { $0.contains("chatty plugin says hello on stderr") && $0.contains("step=greet") })
        #expect(lines.contains { $0.contains("launch finished") })
    }

    @Test func autoLogsToTheJournalWhenJournalStreamIsStderr() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Binaries.splashd), "build splashd first")
        let dir = try Self.prepare()
        defer { dir.remove() }
        let outcome = try JournaldSandbox.run(
            Self.runDaemon, in: dir, environment: Self.environment(logFormat: "auto", journalStreamOf: "stderr")
        )
        try #require(outcome.status == 0, "\(outcome.output)\n\(dir.read("splashd.out") ?? "")")
        #expect(dir.read("splashd.out") == "")
        let ours = outcome.entries.filter { $0["SYSLOG_IDENTIFIER"] == "splashd" }
        #expect(ours.contains { $0["MESSAGE_ID"] == LaunchLogEvent.launchFinished.messageID })
    }

    @Test func autoLogsTextWhenJournalStreamNamesAnotherFile() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Binaries.splashd), "build splashd first")
        let dir = try Self.prepare()
        defer { dir.remove() }
        let outcome = try JournaldSandbox.run(
            Self.runDaemon, in: dir, environment: Self.environment(logFormat: "auto", journalStreamOf: "other")
        )
        try #require(outcome.status == 0, "\(outcome.output)\n\(dir.read("splashd.out") ?? "")")
        #expect(!outcome.entries.contains { $0["SYSLOG_IDENTIFIER"] == "splashd" })
        let log = dir.read("splashd.out") ?? ""
        #expect(log.contains(" info launch started (boot) event=launch-started launch="), "\(log)")
        #expect(!log.contains("not sent to the journal"))
    }
}
