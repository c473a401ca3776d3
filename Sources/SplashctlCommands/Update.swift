import ArgumentParser
import Glibc
import SplashProtocol
import SplashSupport

/// `splashctl update`: the update view for any updater (design §15), one word at a time.
struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive the update view: its progress and message, then its end.",
        discussion: """
            The first word of an update shows the update view (the logo, "Installing update", a \
            progress bar, the message and "Do not turn off the device"); a launch that is loading \
            waits at the end of its work until the update ends. --succeeded shows "Restarting…" \
            and --failed the error, for [update] end_view (10 s by default); --clear ends the view \
            at once. Examples: splashctl update --progress 40 --message "Copying image"; \
            splashctl update --failed "signature verification failed".
            """
    )
    @ParentCommand var parent: Splashctl
    @Option(help: ArgumentHelp("How far the update is, in percent (0 to 100).", valueName: "percent")) var progress: Double?
    @Option(help: "The updater's message (an empty one clears it).") var message: String?
    @Flag(help: "The update was installed: \"Restarting…\".") var succeeded = false
    @Option(help: ArgumentHelp("The update failed, and why.", valueName: "error")) var failed: String?
    @Flag(help: "End the update view now.") var clear = false

    func validate() throws {
        if let progress, !(progress.isFinite && (0...100).contains(progress)) {
            throw ValidationError("--progress must be from 0 to 100")
        }
        let ends = [succeeded, failed != nil, clear].filter { $0 }.count
        guard ends <= 1 else { throw ValidationError("--succeeded, --failed and --clear: one at a time") }
        guard progress != nil || message != nil || ends == 1 else {
            throw ValidationError("say --progress, --message, --succeeded, --failed or --clear")
        }
    }

    func run() throws {
        let daemon = DaemonSocket(socket: parent.socket)
        switch (progress, message) {
        case (let progress?, let message?): try daemon.control(.update(.step(progress / 100, message: message)))
        case (let progress?, nil): try daemon.control(.update(.progress(progress / 100)))
        case (nil, let message?): try daemon.control(.update(.message(message)))
        case (nil, nil): break
        }
        if succeeded { try daemon.control(.update(.ended(.succeeded, error: nil))) }
        if let failed { try daemon.control(.update(.ended(.failed, error: failed))) }
        if clear { try daemon.control(.update(.quit)) }
    }
}

/// `splashctl shutdown`: the shutdown view, until the power goes.
struct Shutdown: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the shutdown view (\"Shutting down\" or \"Restarting\") until the power goes.",
        discussion: """
            The package's splashd-shutdown.service runs it early in a shutdown; the app's unit \
            stopping after it is not a crash. Nothing ends the view but the power (or splashd's stop).
            """
    )
    @ParentCommand var parent: Splashctl
    /// `ShutdownKind` as flags.
    enum Kind: String, EnumerableFlag {
        case poweroff, reboot

        static func help(for value: Kind) -> ArgumentHelp? { value == .reboot ? "Restarting." : "Powering off (the default)." }
    }

    @Flag(help: "How the device goes down.") var kind: Kind = .poweroff

    func run() throws { try DaemonSocket(socket: parent.socket).control(.shutdown(kind == .reboot ? .reboot : .poweroff)) }
}

/// `splashctl psplash-write COMMAND`, and `psplash-write COMMAND` (the package's link): psplash's
/// own client, byte for byte, so Mender's state scripts and anything else that calls it work
/// unchanged: `COMMAND` and a NUL written to `$PSPLASH_FIFO_DIR/psplash_fifo` (`/run` by default),
/// opened without blocking; when nothing reads it, nothing is written and the exit status is 255,
/// silently, as psplash's. Unlike psplash's, it writes only into a FIFO, never through a link:
/// anything else at the path is as a FIFO nothing reads.
struct PsplashWrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "psplash-write",
        abstract: "Write one command (PROGRESS n, MSG text, QUIT) to psplash's FIFO, as psplash-write does.",
        discussion: """
            splashd reads the FIFO with [update] psplash_fifo = true. The package links \
            /usr/bin/psplash-write to this command. Exit status: 0 written (as psplash's, a full FIFO \
            is not looked at); 255 no reader, or the path is not a FIFO (a link, a regular file: \
            nothing written, nothing said), or not exactly one argument.
            """
    )
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The command.", valueName: "command")) var command: [String] = []

    func run() throws {
        let status = Self.write(arguments: command, environment: ProcessEnvironment.current())
        if status != 0 { throw ExitCode(status) }
    }

    /// psplash-write's work: its exit status.
    static func write(arguments: [String], environment: [String: String]) -> Int32 {
        guard arguments.count == 1 else {
            StandardStreams.printError("Wrong number of arguments")
            return 255
        }
        // As splashd reads it: an empty directory is the default's.
        let directory = environment["PSPLASH_FIFO_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run"
        // Never through a link, and only into a FIFO: psplash's own client follows a link and
        // writes into whatever is there (a regular file's first bytes). Anything else is as when
        // nothing reads: nothing written, 255.
        let fd = open(directory + "/psplash_fifo", O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return 255 }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else { return 255 }
        // As psplash's: one write, its result not looked at (a full FIFO loses the command).
        let bytes = Array(arguments[0].utf8) + [0]
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        return 0
    }
}
