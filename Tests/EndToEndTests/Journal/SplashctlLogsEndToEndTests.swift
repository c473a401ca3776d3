import Foundation
import SplashCore
import Testing
import TestSupport

/// `splashctl logs` reading what the real daemon wrote to a real systemd-journald (see
/// `JournaldSandbox`), through sd-journal.
///
/// One sandbox run does it all, in order: `logs --follow` started before any launch; splashd
/// with a launch held open by a signal step; records forged by another program; the launch
/// finished; then `logs last`, `--json`, by id and by prefix, an unknown id, and a relaunch
/// followed and ended with SIGTERM. The body writes each command's output to a file and its exit
/// status to `notes`; the tests read them (one run for all of them: it takes seconds).
@MainActor @Suite(.serialized) struct SplashctlLogsEndToEndTests {
    /// `greet` logs a line with an escape sequence, `flaky` fails its first attempt, `gate`
    /// keeps the launch in loading until `splashctl complete gate`.
    private static let config = TestConfig.instantSplash + """
        [[step]]
        id = "greet"
        plugin = "chatty"

        [[step]]
        id = "flaky"
        plugin = "flaky"
        retry = { attempts = 2, backoff = "10ms" }

        [[step]]
        id = "gate"
        plugin = "signal"
        """

    /// Sends two records over the journal's native protocol (binary-safe, so a raw newline gets
    /// in): one as `splashd` with control characters, one from another program with the launch's
    /// id.
    private static let forge = #"""
        import socket, struct, sys
        launch = sys.argv[1]
        def send(fields):
            data = b""
            for name, value in fields:
                value = value.encode()
                data += name.encode() + b"\n" + struct.pack("<Q", len(value)) + value + b"\n"
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.sendto(data, "/run/systemd/journal/socket")
        send([("SYSLOG_IDENTIFIER", "splashd"), ("PRIORITY", "4"), ("SPLASHD_LAUNCH", launch),
              ("SPLASHD_STEP", "x\x1b[1A"), ("SPLASHD_ATTEMPT", "1"), ("MESSAGE", "forged \x1b[2J\nline")])
        send([("SYSLOG_IDENTIFIER", "intruder"), ("PRIORITY", "6"), ("SPLASHD_LAUNCH", launch),
              ("MESSAGE", "intruder record")])
        """#

    private static let body = #"""
        work=$1
        journal=/run/log/journal
        note() { echo "$*" >>"$work/notes"; }
        ctl() { "$SPLASHCTL" --socket "$work/splashd.sock" "$@"; }
        logs() { "$SPLASHCTL" logs --directory "$journal" "$@"; }
        # Waits up to $1 seconds for a command to succeed.
        within() { local deadline=$((SECONDS + $1)); shift; until "$@"; do
            [ "$SECONDS" -lt "$deadline" ] || return 1; sleep 0.05; done; }
        running() { kill -0 "$1" 2>/dev/null; }
        # sd-journal watches the journal with inotify once it waits for changes (sd_journal_get_fd).
        watching() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:inotify'; }
        stopped() { ! running "$1"; }
        launch_of() { python3 -c 'import json, sys; print(json.load(sys.stdin)["launch"])'; }
        # A follow left running (a failed step of the body) must not outlive it.
        follows=()
        trap 'status=$?; for pid in "${follows[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done; exit "$status"' EXIT

        # Follow before splashd runs: there is no launch yet, so it waits for the first one.
        "$SPLASHCTL" logs --directory "$journal" --follow >"$work/follow.out" 2>"$work/follow.err" &
        follow=$!
        follows+=("$follow")
        within 10 watching "$follow" && running "$follow" && note "follow waits for a launch"

        "$SPLASHD" --log-format journal --verbose --config "$work/splashd.toml" --socket "$work/splashd.sock" \
            --state-dir "$work/state" --plugin-dir "$work/plugins" >"$work/splashd.out" 2>&1 &
        splashd=$!
        within 20 ctl ping >/dev/null 2>&1 || { note "splashd did not serve"; kill -KILL "$splashd"; exit 4; }
        first=$(ctl status --json | launch_of)
        echo "$first" >"$work/first-launch"

        # The launch is held in loading by gate: follow has printed its start and runs on.
        within 10 grep -q launch-started "$work/follow.out" && running "$follow" \
            && note "follow prints while the launch runs"
        within 10 grep -q 'flaky .* step-finished' "$work/follow.out" || note "flaky did not finish"
        python3 -c "$FORGE" "$first"
        ctl complete gate
        ctl wait finished --timeout 20s || { kill -KILL "$splashd"; exit 5; }
        if within 10 stopped "$follow"; then
            status=0; wait "$follow" || status=$?; note "follow exited $status"
        else
            kill -KILL "$follow"; note "follow did not exit"
        fi

        # follow saw launch-finished in the journal files: every earlier record is there too.
        # (stderr apart: bash writes its job notices into a function's redirected stderr)
        status=0; logs >"$work/last.out" 2>"$work/last.err" || status=$?; note "last exited $status"
        status=0; logs last --json >"$work/last.json" 2>"$work/json.err" || status=$?; note "json exited $status"
        status=0; logs "$first" >"$work/by-id.out" 2>"$work/by-id.err" || status=$?; note "by-id exited $status"
        status=0; logs "${first:0:8}" >"$work/by-prefix.out" 2>"$work/by-prefix.err" || status=$?
        note "by-prefix exited $status"
        status=0; logs 00000000-0000-0000-0000-000000000000 >"$work/unknown.out" 2>"$work/unknown.err" || status=$?
        note "unknown exited $status"

        # A relaunch: `last` is the new launch now; a follow of it ends on SIGTERM.
        ctl relaunch
        new_launch() { second=$(ctl status --json | launch_of); [ "$second" != "$first" ]; }
        within 10 new_launch || note "no new launch after relaunch"
        echo "$second" >"$work/second-launch"
        "$SPLASHCTL" logs --directory "$journal" "$second" --follow >"$work/second.out" 2>&1 &
        follow=$!
        follows+=("$follow")
        within 10 grep -q launch-started "$work/second.out" && running "$follow" && note "second follow runs"
        kill -TERM "$follow"
        if within 10 stopped "$follow"; then
            status=0; wait "$follow" || status=$?; note "second follow exited $status"
        else
            kill -KILL "$follow"; note "second follow did not stop on SIGTERM"
        fi
        status=0; logs >"$work/second-last.out" 2>"$work/second-last.err" || status=$?
        note "second last exited $status"

        kill -TERM "$splashd"
        wait "$splashd" || true
        """#

    /// What the one sandbox run left: the files the body wrote, its notes, the two launch ids.
    private struct Run: Sendable {
        var files: [String: String]
        var notes: [String]
        var first: String
        var second: String

        func read(_ name: String) -> String { files[name] ?? "" }
    }

    /// The run, made by the first test that asks for it: every test reads the same run.
    private static let shared: Result<Run, any Error> = Result { try run() }

    /// The shared run; a machine that cannot run the sandbox skips the test.
    private static func sharedRun() throws -> Run {
        if let reason = JournaldSandbox.unavailableReason() { try cancelTest("skipped: \(reason)") }
        do {
            return try shared.get()
        } catch {
            // Not the error itself: a failed `#require` throws an error that Swift Testing takes
            // as already recorded, which would let every test after the first pass.
            throw RunFailed(description: "the sandbox run failed (see the first test): \(error)")
        }
    }

    private struct RunFailed: Error, CustomStringConvertible {
        var description: String
    }

    private static func run() throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: Binaries.splashd), "build splashd first")
        try #require(FileManager.default.isExecutableFile(atPath: Binaries.splashctl), "build splashctl first")
        let dir = try TemporaryDirectory(prefix: "splashctl-logs")
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("chatty", #"printf 'paint \033[31mred\033[0m done\n' >&2"#)
        try plugins.add("flaky", """
            if [ "$SPLASHD_ATTEMPT" = 1 ]; then echo "first try fails" >&2; exit 75; fi
            echo "second try works" >&2
            """)
        try dir.write("splashd.toml", config)
        try FileManager.default.createDirectory(atPath: dir.file("state"), withIntermediateDirectories: true)
        let outcome = try JournaldSandbox.run(
            body, in: dir,
            environment: [
                "SPLASHD": Binaries.splashd, "SPLASHCTL": Binaries.splashctl, "SWIFT_BACKTRACE": "enable=no",
                "FORGE": forge,
            ]
        )
        let notes = (dir.read("notes") ?? "").split(separator: "\n").map(String.init)
        try #require(
            outcome.status == 0,
            "\(outcome.output)\nnotes: \(notes)\nsplashd: \(dir.read("splashd.out") ?? "")"
        )
        let names = [
            "last.out", "last.err", "last.json", "by-id.out", "by-prefix.out", "unknown.out", "unknown.err",
            "follow.out", "follow.err", "second.out", "second-last.out",
        ]
        var files: [String: String] = [:]
        for name in names { files[name] = dir.read(name) }
        func line(_ name: String) -> String { (dir.read(name) ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        return Run(files: files, notes: notes, first: line("first-launch"), second: line("second-launch"))
    }

    /// One table row, cut into its columns.
    private struct Row: CustomStringConvertible {
        var time: String
        var step: String
        var attempt: String
        var event: String
        var message: String
        var description: String

        /// The row of a table line: the time is 19 characters, columns are separated by at
        /// least two spaces, the message is the rest.
        init?(_ line: Substring) {
            description = String(line)
            guard line.count > 21 else { return nil }
            time = String(line.prefix(19))
            var rest = line.dropFirst(21)
            var columns: [String] = []
            for _ in 0..<3 {
                guard let gap = rest.range(of: "  ") else { return nil }
                columns.append(String(rest[..<gap.lowerBound]))
                rest = rest[gap.upperBound...].drop { $0 == " " }
            }
            (step, attempt, event) = (columns[0], columns[1], columns[2])
            message = String(rest)
        }

        /// The columns, for comparing rows whatever the widths.
        var columns: [String] { [time, step, attempt, event, message] }
    }

    /// The rows of a table, after checking its header.
    private func rows(_ table: String) throws -> [Row] {
        let lines = table.split(separator: "\n")
        try #require(lines.first?.hasPrefix("TIME                 STEP") == true, "\(table)")
        return try lines.dropFirst().map { line in try #require(Row(line), "not a row: \(line)") }
    }

    /// No control character of C0, DEL or C1 in `text` but the newlines that end lines.
    private func controls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
    }

    @Test func lastShowsTheLaunchAsATableEscapedAndWithoutOtherPrograms() throws {
        let run = try Self.sharedRun()
        #expect(run.notes.contains("last exited 0"), "\(run.notes)")
        #expect(run.read("last.err") == "")
        let table = run.read("last.out")
        let rows = try rows(table)
        try #require(rows.count >= 6, "\(table)")

        #expect(rows.first?.event == "launch-started", "\(table)")
        #expect(rows.last?.event == "launch-finished", "\(table)")
        #expect(rows.last?.message.hasPrefix("launch finished in ") == true, "\(table)")
        #expect(rows.filter { $0.event == "launch-started" }.count == 1, "only the first launch: \(table)")
        #expect(rows.allSatisfy { $0.time.wholeMatch(of: /[A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d\.\d{3}/) != nil }, "\(table)")

        func has(_ step: String, _ attempt: String, _ event: String) -> Bool {
            rows.contains { $0.step == step && $0.attempt == attempt && $0.event == event }
        }
        #expect(has("greet", "1", "step-finished"), "\(table)")
        #expect(has("flaky", "1", "step-failed"), "\(table)")
        #expect(has("flaky", "2", "step-finished"), "\(table)")
        #expect(has("gate", "1", "step-finished"), "\(table)")
        #expect(has("-", "-", "phase-changed"), "\(table)")
        // Records without a MESSAGE_ID are named by their priority: a step's start (--verbose),
        // its plugin's stderr.
        #expect(has("greet", "1", "debug"), "\(table)")
        #expect(
            rows.contains { $0.step == "flaky" && $0.attempt == "1" && $0.event == "info" && $0.message == "first try fails" },
            "\(table)"
        )

        // The plugin's escape sequence is shown escaped, once (splashd escaped it already).
        let paint = try #require(rows.first { $0.message.hasPrefix("paint ") }, "\(table)")
        #expect(paint.step == "greet")
        #expect(paint.message == #"paint \x1b[31mred\x1b[0m done"#)
        // A record forged as splashd, with a raw escape and newline: shown, escaped.
        let forged = try #require(rows.first { $0.message.hasPrefix("forged") }, "\(table)")
        #expect(forged.message == #"forged \x1b[2J\nline"#)
        #expect(forged.step == #"x\x1b[1A"#)
        #expect(forged.event == "warning")
        #expect(controls(in: table).isEmpty, "\(table.debugDescription)")
        // Another program's record with the launch's id is not splashd's.
        #expect(!table.contains("intruder"), "\(table)")
    }

    @Test func jsonHasOneObjectPerRecordOfTheTable() throws {
        let run = try Self.sharedRun()
        #expect(run.notes.contains("json exited 0"), "\(run.notes)")
        let text = run.read("last.json")
        #expect(controls(in: text).isEmpty, "\(text.debugDescription)")
        let objects = try text.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let table = try rows(run.read("last.out"))
        #expect(objects.count == table.count)
        #expect(objects.allSatisfy { $0["launch"] as? String == run.first }, "\(text)")
        #expect(objects.map { $0["event"] as? String } == table.map(\.event))
        #expect(objects.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true && $0["realtime_usec"] is Int })
        let times = objects.compactMap { $0["realtime_usec"] as? Int }
        #expect(times == times.sorted())

        let finished = try #require(objects.last)
        #expect(finished["message_id"] as? String == LaunchLogEvent.launchFinished.messageID)
        #expect(finished["phase"] as? String == "finished")
        #expect(finished["duration_ms"] is Int)
        #expect(finished["priority"] as? Int == 6)
        let flaky = try #require(objects.first { $0["step"] as? String == "flaky" && $0["event"] as? String == "step-finished" })
        #expect(flaky["attempt"] as? Int == 2)
        // JSON escapes, and reads back, what the forged record holds.
        let forged = try #require(objects.first { ($0["message"] as? String)?.hasPrefix("forged") == true })
        #expect(forged["message"] as? String == "forged \u{1B}[2J\nline")
        #expect(forged["step"] as? String == "x\u{1B}[1A")
    }

    @Test func aLaunchIsFoundByItsIdOrItsPrefixAndAnUnknownOneIsAnError() throws {
        let run = try Self.sharedRun()
        #expect(run.first.count == 36, "a UUID: \(run.first)")
        #expect(run.notes.contains("by-id exited 0"), "\(run.notes)")
        #expect(run.notes.contains("by-prefix exited 0"), "\(run.notes)")
        let last = run.read("last.out")
        #expect(run.read("by-id.out") == last)
        #expect(run.read("by-prefix.out") == last)
        #expect(run.notes.contains("unknown exited 1"), "\(run.notes)")
        #expect(run.read("unknown.out") == "")
        #expect(
            run.read("unknown.err")
                == "splashctl: no records of launch 00000000-0000-0000-0000-000000000000 in the journal\n"
        )
    }

    @Test func followWaitsForTheFirstLaunchAndReturnsOnceItFinished() throws {
        let run = try Self.sharedRun()
        #expect(run.notes.contains("follow waits for a launch"), "\(run.notes)")
        #expect(run.notes.contains("follow prints while the launch runs"), "\(run.notes)")
        #expect(run.notes.contains("follow exited 0"), "\(run.notes)\n\(run.read("follow.err"))")
        let followed = run.read("follow.out")
        let rows = try rows(followed)
        #expect(rows.last?.event == "launch-finished", "\(followed)")
        // The same records as read afterwards (only the step column's width may differ: it was
        // made for the rows there were when following began).
        let last = try self.rows(run.read("last.out"))
        #expect(rows.map(\.columns) == last.map(\.columns), "\(followed)")
    }

    @Test func afterARelaunchLastIsTheNewLaunchAndFollowEndsOnSIGTERM() throws {
        let run = try Self.sharedRun()
        #expect(run.second != run.first && !run.second.isEmpty)
        #expect(run.notes.contains("second follow runs"), "\(run.notes)")
        #expect(run.notes.contains("second follow exited 0"), "\(run.notes)")
        #expect(run.notes.contains("second last exited 0"), "\(run.notes)")
        let table = run.read("second-last.out")
        let rows = try rows(table)
        #expect(rows.first?.event == "launch-started", "\(table)")
        #expect(!rows.contains { $0.event == "launch-finished" }, "the second launch waits at gate: \(table)")
        #expect(!table.contains("forged"), "records of the first launch: \(table)")
        #expect(try self.rows(run.read("second.out")).first?.event == "launch-started")
    }
}
