import Logging
public import SplashCore
public import SplashJSON
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A plugin that runs an executable named by a manifest, one process (group) per attempt.
///
/// The executable runs without a shell, with stdin `/dev/null`, in its own process group, with
/// the daemon's environment (as given, see `PluginEnvironment.Inherited`) plus the `SPLASHD_*`
/// variables (docs/design.md §8).
/// Its stdout carries JSON lines (`{"progress":0.5}`, `{"message":"…"}`, `{"facts":{…}}`);
/// other stdout lines and every stderr line are logged with the step's id. Exit 0 succeeds with
/// the merged facts, exit 75 is a retryable failure, anything else a failure for good.
///
/// No process of the group outlives `run`: on cancellation the group gets SIGTERM, then SIGKILL
/// once `clock` passes `grace` after it; processes left behind after the main process exited get
/// the same treatment. Then so do the attempt's processes that left the group (`setsid`,
/// `setpgid`, a double fork), which `containment` finds (see `PluginContainment`).
public struct ExternalPlugin: StepPlugin {
    /// The exit code that asks for a retry (EX_TEMPFAIL).
    public static let temporaryFailureExitCode: Int32 = 75
    /// How long a start waits for an executable that is open for writing somewhere (`ETXTBSY`):
    /// being copied into place, or held for an instant by a process another thread of a busy
    /// program has forked. Tried again after 5 ms, doubling up to 100 ms between tries.
    public static let defaultBusyExecutableWait: Duration = .seconds(1)
    /// The default time between SIGTERM and SIGKILL.
    public static let defaultGrace: Duration = .seconds(2)
    /// The longest output line kept, in bytes; longer ones are logged cut.
    public static let maxLineLength = 64 * 1024

    /// The plugin's manifest (name, executable).
    public let manifest: PluginManifest
    /// The time between SIGTERM and SIGKILL when tearing the process group down.
    public let grace: Duration
    /// The environment every run inherits, under its `SPLASHD_*` variables.
    public let environment: PluginEnvironment.Inherited
    /// The clock `grace` passes on.
    public let clock: any Clock<Duration>
    /// Finds the attempt's processes that left its process group; shared by the daemon's plugins.
    public let containment: PluginContainment
    /// How long a start waits for an executable that is open for writing (`ETXTBSY`).
    public let busyExecutableWait: Duration

    /// Creates the plugin for `manifest`, with `grace` on `clock` between SIGTERM and SIGKILL,
    /// whose runs inherit `environment` and whose escaped processes `containment` finds.
    public init(
        manifest: PluginManifest,
        grace: Duration = ExternalPlugin.defaultGrace,
        environment: PluginEnvironment.Inherited,
        clock: any Clock<Duration> = ContinuousClock(),
        containment: PluginContainment = PluginContainment(),
        busyExecutableWait: Duration = ExternalPlugin.defaultBusyExecutableWait
    ) {
        self.manifest = manifest
        self.busyExecutableWait = busyExecutableWait
        self.grace = grace
        self.environment = environment
        self.clock = clock
        self.containment = containment
    }

    /// What the body of one run collects.
    private struct Collected: Sendable {
        var facts: Facts
        var lastErrorLine: String?
    }

    /// Runs the executable for one attempt; see the type's documentation.
    public func run(_ context: StepContext) async throws -> Facts {
        // `self.`: a bare `clock` here does not open the existential (Glibc has a `clock()` too).
        try await run(context, on: self.clock)
    }

    private func run(_ context: StepContext, on clock: some Clock<Duration>) async throws -> Facts {
        try Task.checkCancellation()
        let logger = pluginLogger(context)
        try checkExecutable()

        let lifecycle = GroupLifecycle(grace: grace, clock: clock)
        // Reports of an abandoned attempt would only confuse renderers.
        let report: @Sendable (StepReport) -> Void = { report in
            if !lifecycle.isCancelled {
                context.report(report)
            }
        }
        let attempt = containment.begin()
        let environment = PluginEnvironment.rows(for: context.run, inheriting: environment, token: attempt.token)
        var options = PlatformOptions()
        options.processGroupID = 0
        // The SIGTERM and the SIGKILL after `grace` are ours (`GroupLifecycle`, on `clock`), and
        // so is the teardown of leftovers after the main process exited. Subprocess, on a
        // cancellation, continues stopped members, and SIGKILLs the group only as a backstop,
        // should the main process outlive our teardown.
        options.teardownSequence = [
            .send(signal: .resume, toProcessGroup: true, allowedDurationToNextStep: grace + ProcessGroup.killDeadline)
        ]

        logger.debug("starting \(manifest.executable)")
        let outcome: Result<ExecutionResult<Collected, SequenceOutput, SequenceOutput>, any Error>
        do {
            let result = try await withTaskCancellationHandler {
                try await Self.retryingWhileBusy(for: busyExecutableWait, logger: logger) {
                    try await Subprocess.run(
                        .path(FilePath(manifest.executable)),
                        environment: .custom(environment),
                        platformOptions: options,
                        input: .none,
                        output: .sequence,
                        error: .sequence
                    ) { execution in
                        containment.started(attempt, leader: execution.processIdentifier.value)
                        lifecycle.started(group: execution.processIdentifier.value)
                        let output = execution.standardOutput
                        let errors = execution.standardError
                        // Not child tasks: reads in a cancelled task stop at once, but after a
                        // cancellation the plugin's shutdown output is still read (and logged) until
                        // it exits, so that it does not die of SIGPIPE while cleaning up.
                        let facts = Task {
                            try await PluginOutputReader.readOutput(output, report: report, logger: logger)
                        }
                        let lastErrorLine = Task {
                            try await PluginOutputReader.readErrors(errors, logger: logger)
                        }
                        // Both readers finish before the body ends and run closes the descriptors.
                        let factsResult = await facts.result
                        let lastErrorLineResult = await lastErrorLine.result
                        do {
                            return Collected(facts: try factsResult.get(), lastErrorLine: try lastErrorLineResult.get())
                        } catch {
                            // The output is lost: the group is torn down as for a cancellation.
                            lifecycle.cancel()
                            throw error
                        }
                    }
                }
            } onCancel: {
                lifecycle.cancel()
            }
            outcome = .success(result)
        } catch {
            outcome = .failure(error)
        }

        if let teardown = await lifecycle.finish(), let group = lifecycle.group {
            log(teardown, of: group, logger: logger)
        }
        if let escapees = containment.end(attempt) {
            // In a task of its own, which the run's cancellation does not reach: the grace counts.
            let escaped = await Task { [containment, grace] in
                let outcome = await escapees.tearDown(grace: grace, clock: clock)
                containment.tornDown()
                return outcome
            }.value
            log(escaped, logger: logger)
        }
        if Task.isCancelled {
            throw CancellationError()
        }
        switch outcome {
        case .failure(let error):
            throw failure(for: error)
        case .success(let result):
            return try facts(from: result, logger: logger)
        }
    }

    // MARK: - Outcome

    /// The context's logger with `step` and `plugin` metadata.
    private func pluginLogger(_ context: StepContext) -> Logger {
        var logger = context.logger
        logger[metadataKey: "step"] = "\(context.run.step.id)"
        logger[metadataKey: "plugin"] = "\(manifest.name)"
        return logger
    }

    private func facts(
        from result: ExecutionResult<Collected, SequenceOutput, SequenceOutput>,
        logger: Logger
    ) throws -> Facts {
        let collected = result.closureResult
        let reason = collected.lastErrorLine.map { ": \($0)" } ?? ""
        switch result.terminationStatus {
        case .exited(0):
            logger.debug("plugin succeeded")
            return collected.facts
        case .exited(Self.temporaryFailureExitCode):
            throw StepFailure(
                code: .pluginTemporaryFailure,
                message: "plugin \(manifest.name) asked for a retry (exit 75)\(reason)",
                retryable: true
            )
        case .exited(let code):
            throw StepFailure(
                code: .pluginExited,
                message: "plugin \(manifest.name) exited with code \(code)\(reason)",
                retryable: false
            )
        case .signaled(let signal):
            throw StepFailure(
                code: .pluginSignaled,
                message: "plugin \(manifest.name) was killed by signal \(signal)\(Self.signalName(signal))\(reason)",
                retryable: false
            )
        }
    }

    /// Runs `spawn` again while it fails because the executable is open for writing (`ETXTBSY`),
    /// for at most `wait` after the first refusal; then the last error is thrown.
    ///
    /// The wait starts at the first refusal, not before the first spawn: on a busy machine a spawn
    /// can take seconds to come back, and that time is the machine's, not the writer's.
    private static func retryingWhileBusy<T>(
        for wait: Duration,
        logger: Logger,
        _ spawn: () async throws -> T
    ) async throws -> T {
        var deadline: ContinuousClock.Instant?
        var pause: Duration = .milliseconds(5)
        while true {
            do {
                return try await spawn()
            } catch let error as SubprocessError where isBusyExecutable(error) {
                let end = deadline ?? .now + wait
                deadline = end
                guard ContinuousClock.now < end else { throw error }
                logger.debug("executable is open for writing (ETXTBSY); starting it again in \(pause)")
                try await Task.sleep(for: min(pause, end - .now))
                pause = min(pause * 2, .milliseconds(100))
            }
        }
    }

    private static func isBusyExecutable(_ error: SubprocessError) -> Bool {
        error.code == .spawnFailed && error.underlyingError == Errno.textFileBusy
    }

    private func failure(for error: any Error) -> any Error {
        if let failure = error as? StepFailure {
            return failure
        }
        if let error = error as? SubprocessError, Self.isBusyExecutable(error) {
            return StepFailure(
                code: .pluginNotStartable,
                message: "plugin \(manifest.name): cannot start \(manifest.executable): it is still open for writing "
                    + "(ETXTBSY) after \(busyExecutableWait) (being copied into place?)",
                retryable: false
            )
        }
        if let error = error as? SubprocessError {
            switch error.code {
            case .executableNotFound, .spawnFailed, .failedToChangeWorkingDirectory:
                return StepFailure(
                    code: .pluginNotStartable,
                    message: "plugin \(manifest.name): cannot start \(manifest.executable): \(error)",
                    retryable: false
                )
            default:
                break
            }
        }
        return StepFailure(
            code: .pluginIOFailed,
            message: "plugin \(manifest.name) failed: \(error)",
            retryable: false
        )
    }

    /// Fails early, with a clear message, when the executable is missing or not executable.
    private func checkExecutable() throws {
        let path = manifest.executable
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "not found" : "not accessible (\(Self.errnoText()))"
            throw StepFailure(
                code: .pluginNotStartable,
                message: "plugin \(manifest.name): executable \(path) \(reason) (manifest \(manifest.manifestPath))",
                retryable: false
            )
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, access(path, X_OK) == 0 else {
            throw StepFailure(
                code: .pluginNotStartable,
                message: "plugin \(manifest.name): \(path) is not an executable file (manifest \(manifest.manifestPath))",
                retryable: false
            )
        }
    }

    /// How the group's teardown went: worth a notice only when SIGTERM was not enough.
    private func log(_ teardown: ProcessGroup.Teardown, of group: pid_t, logger: Logger) {
        switch teardown {
        case .alreadyGone:
            break
        case .terminated:
            logger.debug("process group \(group) exited after SIGTERM")
        case .killed(gone: true):
            logger.notice("process group \(group) ignored SIGTERM for \(grace); sent SIGKILL")
        case .killed(gone: false):
            logger.error("process group \(group) still has running processes after SIGKILL")
        }
    }

    /// How the teardown of processes that left the group went.
    private func log(_ outcome: Escapees.Outcome, logger: Logger) {
        switch outcome {
        case .nothingLeft:
            break
        case .terminated(let count):
            logger.notice("\(count) process(es) that left the plugin's process group outlived it; stopped with SIGTERM")
        case .killed(let count, gone: true):
            logger.notice("\(count) process(es) that left the plugin's process group outlived it; SIGKILL after \(grace)")
        case .killed(let count, gone: false):
            logger.error("\(count) process(es) that left the plugin's process group still run after SIGKILL")
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }

    /// " (SIGNAME)" for well-known signals, "" otherwise.
    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
            SIGUSR1: "SIGUSR1", SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE",
            SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
        ]
        return names[signal].map { " (\($0))" } ?? ""
    }
}
