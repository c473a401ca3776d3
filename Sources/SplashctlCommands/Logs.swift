import ArgumentParser
import CLinuxShims
import Glibc
import SplashJournalReader

/// `splashctl logs [LAUNCH|last] [--follow] [--json] [--directory DIR]`: a launch's journal
/// records, read through sd-journal (the daemon is not asked).
struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a launch's journal records as a table (time, step, attempt, event, message).",
        discussion: """
            Reads splashd's records (SYSLOG_IDENTIFIER=splashd) of one launch from the local system \
            journal, which needs root or group systemd-journal or adm. Exits 1 when the launch is \
            not in the journal.
            """
    )

    @Argument(help: "The launch's id, or its first characters as `history` prints them; last: the newest launch.")
    var launch = "last"

    @Flag(help: "After the records, wait for new ones until the launch has finished (or SIGINT/SIGTERM).")
    var follow = false

    @Flag(help: "One JSON object per record and line.")
    var json = false

    @Option(help: ArgumentHelp("Read the journal files in DIR (like journalctl -D).", valueName: "DIR"))
    var directory: String?

    func validate() throws {
        if launch.isEmpty { throw ValidationError("the launch id is empty") }
    }

    func run() throws {
        do {
            try show()
        } catch {
            Output.error(error.description)
            throw ExitCode(error.exitCode)
        }
    }

    /// Prints the launch's records; with `--follow`, then the records to come.
    private func show() throws(JournalReadError) {
        let reader = try JournalReader(directory: directory)
        // Following, SIGINT and SIGTERM are blocked and read from a signalfd: they end the wait,
        // and splashctl exits 0.
        var signals: Int32 = -1
        if follow {
            signals = splashd_signalfd_termination()
            guard signals >= 0 else { throw .readFailed(operation: "signalfd", errno: errno) }
            try reader.startWatching()
        }
        defer { if signals >= 0 { close(signals) } }

        guard let selected = try selectedLaunch(reader, signals: signals) else { return }
        try reader.select(launch: selected)

        var records: [LaunchLogRecord] = []
        while let record = try reader.next() { records.append(record) }
        let table = LaunchLogTable(records: records)
        var text = json ? "" : table.header + "\n"
        for record in records { text += line(record, table) }
        Output.out(text)
        guard follow, !records.contains(where: { $0.kind == .launchFinished }) else { return }

        while try reader.wait(interruptedBy: signals) == .changed {
            while let record = try reader.next() {
                Output.out(line(record, table))
                if record.kind == .launchFinished { return }
            }
        }
    }

    /// The launch to show; with `last --follow` and no launch yet, the first one to come (nil
    /// when a signal came first).
    private func selectedLaunch(_ reader: JournalReader, signals: Int32) throws(JournalReadError) -> String? {
        while true {
            if let found = try reader.launch(named: launch) { return found }
            guard follow else { throw .noLaunch(hint: reader.accessHint) }
            if try reader.wait(interruptedBy: signals) == .interrupted { return nil }
        }
    }

    /// The table row or JSON line of `record`, with a newline.
    private func line(_ record: LaunchLogRecord, _ table: LaunchLogTable) -> String {
        if json { return record.jsonLine + "\n" }
        return table.row(record, time: LocalTimestamp.string(realtimeUsec: record.realtimeUsec)) + "\n"
    }
}
