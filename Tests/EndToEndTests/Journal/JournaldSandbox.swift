import Foundation
import Testing
import TestSupport

/// A private `systemd-journald` in its own mount namespace, for tests that read what reached it.
///
/// `unshare -m` gives the script private mounts: tmpfs on `/run/systemd/journal` (the sockets)
/// and `/run/log/journal` (the volatile journal), and our `journald.conf` bound over
/// `/etc/systemd/journald.conf`. journald starts in the background; once its socket exists the
/// test's body script runs; then journald is stopped (it flushes on SIGTERM) and
/// `journalctl --directory=/run/log/journal -o json` is read back. Nothing outside the namespace
/// changes except, at most, empty mount point directories under /run.
struct JournaldSandbox {
    /// The result of one run: the journal entries and the output of the body script.
    struct Outcome {
        var entries: [JournalEntry]
        var status: Int32
        var output: String
    }

    static let journald = "/lib/systemd/systemd-journald"
    static let unshare = "/usr/bin/unshare"
    static let journalctl = "/usr/bin/journalctl"
    /// The script's exit status when the machine cannot set up the namespace.
    static let cannotSetUp: Int32 = 77

    /// Why this machine cannot run the sandbox, or nil when it can.
    static func unavailableReason() -> String? {
        if getuid() != 0 { return "needs root for unshare -m and mount (running as uid \(getuid()))" }
        for tool in [journald, unshare, journalctl, "/etc/systemd/journald.conf"]
        where !FileManager.default.fileExists(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }

    /// Runs `body` (bash; `$1` is the work directory, `binaries` are in the environment) inside
    /// the namespace; with `startJournald` false the journal socket directory stays empty.
    static func run(
        _ body: String,
        in dir: TemporaryDirectory,
        environment: [String: String] = [:],
        startJournald: Bool = true
    ) throws -> Outcome {
        if let reason = unavailableReason() {
            print("skipped: \(reason)")
            try cancelTest("skipped: \(reason)")
        }
        try dir.write("journald.conf", "[Journal]\nStorage=volatile\nReadKMsg=no\nAudit=no\nForwardToSyslog=no\nForwardToWall=no\n")
        try dir.write("body.sh", "set -euo pipefail\n" + body + "\n")
        let sandbox = try dir.write("sandbox.sh", script)
        let result = try ProcessRunner.run(
            "/usr/bin/timeout",
            ["-k", "5", "60", unshare, "-m", "--propagation", "private", "/bin/bash", sandbox, dir.path],
            environment: environment.merging(["START_JOURNALD": startJournald ? "yes" : "no"]) { _, new in new },
            timeout: .seconds(90)
        )
        if result.status == cannotSetUp {
            print("skipped: this machine cannot set up the journald sandbox: \(result.stderr)")
            try cancelTest("skipped: cannot set up the journald sandbox: \(result.stderr)")
        }
        let json = dir.read("journal.json") ?? ""
        let entries = try json.split(separator: "\n").map { try JournalEntry(json: String($0)) }
        return Outcome(entries: entries, status: result.status, output: result.stdout + result.stderr)
    }

    private static let script = #"""
        #!/bin/bash
        set -uo pipefail
        work=$1
        cannot() { echo "$*" >&2; exit 77; }
        mkdir -p /run/systemd/journal /run/log/journal || cannot "cannot create the mount points under /run"
        mount -t tmpfs -o mode=0755 tmpfs /run/systemd/journal || cannot "cannot mount a tmpfs on /run/systemd/journal"
        mount -t tmpfs -o mode=0755 tmpfs /run/log/journal || cannot "cannot mount a tmpfs on /run/log/journal"
        mount --bind "$work/journald.conf" /etc/systemd/journald.conf || cannot "cannot bind journald.conf"

        journald=
        stop_journald() {
            if [ -n "$journald" ] && kill -TERM "$journald" 2>/dev/null; then wait "$journald"; fi
            journald=
        }
        trap stop_journald EXIT
        if [ "$START_JOURNALD" = yes ]; then
            /lib/systemd/systemd-journald >"$work/journald.log" 2>&1 &
            journald=$!
            deadline=$((SECONDS + 10))
            until [ -S /run/systemd/journal/socket ]; do
                if ! kill -0 "$journald" 2>/dev/null; then
                    echo "systemd-journald exited:" >&2; cat "$work/journald.log" >&2; exit 3
                fi
                if [ "$SECONDS" -ge "$deadline" ]; then echo "journald made no socket in 10s" >&2; exit 3; fi
                sleep 0.05
            done
        fi

        status=0
        /bin/bash "$work/body.sh" "$work" || status=$?
        stop_journald
        if [ "$START_JOURNALD" = yes ]; then
            journalctl --directory=/run/log/journal -o json --no-pager >"$work/journal.json" || exit 3
        fi
        exit "$status"
        """#
}

/// One journal entry as `journalctl -o json` prints it.
struct JournalEntry: CustomStringConvertible {
    /// Each field's values (a field may repeat; binary values are byte arrays).
    var fields: [String: [String]]
    var description: String

    init(json: String) throws {
        description = json
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        guard let dictionary = object as? [String: Any] else { throw JournalEntryError(line: json) }
        fields = dictionary.mapValues { value in
            switch value {
            case let text as String: [text]
            case let numbers as [Int]: [Self.bytes(numbers)]
            case let many as [Any]: many.map { ($0 as? String) ?? ($0 as? [Int]).map(Self.bytes) ?? "\($0)" }
            default: ["\(value)"]
            }
        }
    }

    /// The first value of field `name`.
    subscript(name: String) -> String? { fields[name]?.first }

    /// A binary value (journalctl prints it as an array of byte values).
    private static func bytes(_ numbers: [Int]) -> String {
        String(decoding: numbers.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)
    }
}

struct JournalEntryError: Error, CustomStringConvertible {
    var line: String
    var description: String { "not a journal JSON object: \(line)" }
}

/// Ends the running test as skipped, with the reason: Swift Testing's `Test.cancel`, which Swift
/// 6.3 has. Under 6.2 (the arm64 toolchain) the test fails with the reason instead: a skip is
/// seen either way, never a silent pass.
func cancelTest(_ reason: String) throws -> Never {
    #if compiler(>=6.3)
    try Test.cancel(Comment(rawValue: reason))
    #else
    throw SkippedTest(reason: reason)
    #endif
}

/// A test this machine cannot run, under a Swift Testing without `Test.cancel`.
struct SkippedTest: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
