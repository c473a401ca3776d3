public import Logging
public import SplashCore
import SplashBuiltins
import SplashPlugins

/// Runs launches: owns the `LaunchMachine`, runs step attempts through plugins, keeps time with an
/// injected `Clock`, and publishes every new state to the broadcaster.
///
/// Every input — a plugin's report or result, a timer — goes through one ordered stream consumed by
/// `run()`, so a plugin's last progress report is never applied after its result. The timer wakes
/// at the machine's `nextDeadline` exactly (or earlier, see `reschedule`); there is no polling tick.
public actor LaunchController<C: Clock>: CommandHandler where C.Duration == Duration {
    enum Input: Sendable {
        case finished(token: UInt64, result: Result<Facts, StepFailure>)
        case report(token: UInt64, StepReport)
        /// The timer armed with this number fired.
        case timer(UInt64)
        /// Publish the state, once every input queued before it has been applied.
        case flush
    }

    /// States are published at least this often while steps run.
    static var tickInterval: Duration { .milliseconds(100) }

    /// The daemon's `publishInterval`: about one frame of a 60 Hz display. A renderer cannot show
    /// states faster, and a 200-step graph of quick plugins otherwise published one full state
    /// (22 kB, to every subscriber) for every two or three step results.
    public static var defaultPublishInterval: Duration { .milliseconds(16) }

    private var machine: LaunchMachine
    private var plugins: PluginRegistry
    /// A reloaded configuration, taken up by the next launch.
    private var reloaded: (graph: StepGraph, settings: SplashSettings, plugins: PluginRegistry)?
    private let clock: C
    private let origin: C.Instant
    private let broadcaster: StateBroadcaster
    private let builtins: BuiltinServices?
    private let logger: Logger
    private let makeLaunchID: @Sendable () -> String
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    /// Attempts in flight (including cancelled ones still tearing down), by token.
    private var running: [UInt64: Task<Void, Never>] = [:]
    private var timer: (deadline: Duration, task: Task<Void, Never>, number: UInt64)?
    private var timersArmed: UInt64 = 0
    /// The state changed since the last publish.
    private var publishPending = false
    /// A `.flush` is queued behind the inputs waiting now.
    private var flushQueued = false
    /// The shortest time between two coalesced states; see `publishCoalesced()`.
    private let publishInterval: Duration
    /// When the last state was published.
    private var lastPublishAt: Duration?
    /// A coalesced state held back by `publishInterval`, due at this instant.
    private var heldPublishAt: Duration?
    private var started = false
    /// What happened in this launch, for the history and the reports.
    private var recorder: LaunchRecorder?
    private var history: HistoryLog
    private let historyStore: HistoryStore?
    private let wallClockMs: @Sendable () -> Int64

    /// - Parameters:
    ///   - publishInterval: the shortest time between two states published for step results,
    ///     progress and messages (coalesced); phase changes and replies to commands are published
    ///     at once. Zero publishes every coalesced state as soon as the inputs queued are applied.
    ///   - makeLaunchID: a fresh launch id (a UUID in the daemon; predictable in tests).
    public init(
        graph: StepGraph,
        settings: SplashSettings,
        plugins: PluginRegistry,
        clock: C,
        broadcaster: StateBroadcaster,
        builtins: BuiltinServices? = nil,
        history: HistoryLog = HistoryLog(),
        historyStore: HistoryStore? = nil,
        wallClockMs: @escaping @Sendable () -> Int64 = { 0 },
        publishInterval: Duration = .zero,
        logger: Logger,
        makeLaunchID: @escaping @Sendable () -> String
    ) {
        self.publishInterval = publishInterval
        self.builtins = builtins
        self.history = history
        self.historyStore = historyStore
        self.wallClockMs = wallClockMs
        self.machine = LaunchMachine(graph: graph, settings: settings)
        self.machine.tickInterval = Self.tickInterval
        self.plugins = plugins
        self.clock = clock
        self.origin = clock.now
        self.broadcaster = broadcaster
        self.logger = logger
        self.makeLaunchID = makeLaunchID
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    }

    /// Time since the controller was made, in the machine's terms.
    private var now: Duration { origin.duration(to: clock.now) }

    /// Starts the first launch and processes inputs until the calling task is cancelled;
    /// then cancels every attempt and waits until their plugins are torn down.
    public func run() async {
        if !started {
            started = true
            machine.estimator = estimator(for: machine.graph)
            apply(machine.start(launch: makeLaunchID(), at: now))
        }
        for await input in inputs {
            switch input {
            case .finished(let token, let result):
                running[token] = nil
                apply(machine.stepFinished(token: token, result: result, at: now), coalescing: true)
            case .report(let token, .progress(let fraction)):
                apply(machine.stepReported(token: token, fraction: fraction, at: now), coalescing: true)
            case .report(let token, .message(let message)):
                apply(machine.stepReported(token: token, message: message, at: now), coalescing: true)
            case .timer(let number):
                // A cancelled timer may have fired already; only the armed one is gone.
                if timer?.number == number { timer = nil }
                apply(machine.advance(to: now), coalescing: true)
                if let held = heldPublishAt, held <= now { publishNow() }
            case .flush:
                flushQueued = false
                publishCoalesced()
            }
        }
        await stopAll()
    }

    /// Keeps a new configuration for the next launch (the running one is never changed midway).
    public func reload(graph: StepGraph, settings: SplashSettings, plugins: PluginRegistry) {
        reloaded = (graph, settings, plugins)
    }

    /// Returns once the controller's actor is free: the watchdog's liveness probe.
    public func heartbeat() {}

    public func handle(_ command: Request.Command) async -> Result<Void, ProtocolError> {
        let change: LaunchMachine.Command
        switch command {
        case .retry: change = .retry
        case .continueOffline: change = .continueOffline
        case .dismissed: change = .dismissed
        case .relaunch:
            if reloaded != nil, machine.phase == .finished {
                await builtins?.launchStarted()
                // Checked again after the suspension; from here on nothing suspends.
                if let reloaded, machine.phase == .finished {
                    // The reloaded graph takes over at a launch boundary; seq keeps counting.
                    machine = LaunchMachine(graph: reloaded.graph, settings: reloaded.settings, seq: machine.seq)
                    machine.tickInterval = Self.tickInterval
                    machine.estimator = estimator(for: reloaded.graph)
                    plugins = reloaded.plugins
                    self.reloaded = nil
                    logger.notice("the reloaded configuration takes effect with this launch")
                    apply(machine.start(launch: makeLaunchID(), at: now))
                    return .success(())
                }
            }
            change = .relaunch(launch: makeLaunchID())
        case .complete(let step):
            guard let spec = machine.graph[step] else {
                return .failure(ProtocolError(code: ProtocolError.Code.unknownStep, message: "no step \"\(step)\" in this graph"))
            }
            guard let board = plugins.signalBoard, spec.plugin == PluginRegistry.signalPluginName else {
                return .failure(
                    ProtocolError(
                        code: ProtocolError.Code.notASignalStep,
                        message: "step \"\(step)\" uses plugin \(spec.plugin), not signal"
                    )
                )
            }
            await board.complete(step: step)
            logger.info("signal step completed by a client", metadata: ["step": "\(step)"])
            return .success(())
        case .action(let text), .open(let text):
            let input: QuickInput = if case .action = command { .action(text) } else { .open(text) }
            if machine.phase != .finished {
                // Queued for this launch's quick-action step.
                await builtins?.post(input)
                return .success(())
            }
            let event = builtins.map { $0.event(for: input, graph: machine.graph, logger: logger) }
                ?? BuiltinServices.event(input, resolution: nil)
            guard let event else {
                return .failure(
                    ProtocolError(code: "unknown-action", message: "no route for \(command.name) \(String(text.prefix(200)))")
                )
            }
            broadcaster.broadcast(event: event)
            return .success(())
        case .signIn(let session):
            guard let builtins else { return .failure(Self.noBuiltins(command)) }
            return builtins.signIn(session, graph: machine.graph, logger: logger)
        case .signOut:
            guard let builtins else { return .failure(Self.noBuiltins(command)) }
            return builtins.signOut(graph: machine.graph, logger: logger)
        case .ping, .state, .subscribe, .report:
            return .success(())
        }
        if case .relaunch = change, machine.phase == .finished {
            // Forget the last launch's completions and inputs first: between these awaits and the
            // transition below, nothing of the new launch exists yet.
            await plugins.signalBoard?.reset()
            await builtins?.launchStarted()
            machine.estimator = estimator(for: machine.graph)
        }
        do {
            // No suspension from here on: the transition and its actions happen in one turn.
            apply(try machine.apply(change, at: now))
            return .success(())
        } catch {
            return .failure(ProtocolError(code: error.code, message: error.message))
        }
    }

    public func report(_ report: Report) async -> Result<(data: JSONValue, text: String?), ProtocolError> {
        switch report {
        case .graph:
            return .success((data: .object(["dot": .string(GraphExport.dot(machine.graph))]), text: nil))
        case .history:
            return .success((data: HistorySummary.json(history.records), text: HistorySummary.lines(history.records).joined(separator: "\n")))
        case .blame, .criticalChain, .plot:
            // The last finished launch; before any, the one running now.
            guard let record = history.last ?? recorder?.record else {
                return .failure(ProtocolError(code: ProtocolError.Code.unavailable, message: "no launch recorded yet"))
            }
            switch report {
            case .blame:
                let entries = Blame.rank(record)
                return .success((data: .object(["launch": .string(record.launch), "steps": Blame.json(entries)]), text: Blame.text(entries)))
            case .criticalChain:
                let chain = CriticalChain.compute(record)
                return .success((data: chain.json, text: chain.text))
            default:
                return .success((data: .object(["launch": .string(record.launch), "svg": .string(GanttPlot.svg(record))]), text: nil))
            }
        }
    }

    static func noBuiltins(_ command: Request.Command) -> ProtocolError {
        ProtocolError(code: ProtocolError.Code.unavailable, message: "\(command.name) needs the built-in plugins")
    }


    // MARK: Carrying out actions

    /// Carries out `actions`. With `coalescing`, a state change is published once every input
    /// already queued has been applied (one state for a burst of step results), except a phase
    /// change, which is published at once: subscribers never miss a phase.
    private func apply(_ actions: [LaunchAction], coalescing: Bool = false) {
        var phaseChanged = false
        for action in actions {
            switch action {
            case .start(let run): start(run)
            case .cancel(_, let token): running[token]?.cancel()
            case .event(let event):
                LaunchLog.log(event, launch: machine.launch, to: logger)
                record(event)
                if case .phaseChanged = event { phaseChanged = true }
                if case .launchFinished = event, let builtins { launchFinished(builtins) }
            case .publish: publishPending = true
            }
        }
        if publishPending {
            if coalescing && !phaseChanged {
                if !flushQueued {
                    flushQueued = true
                    continuation.yield(.flush)
                }
            } else {
                publishNow()
            }
        }
        reschedule()
    }

    private func publishNow() {
        heldPublishAt = nil
        guard publishPending else { return }
        publishPending = false
        let now = self.now
        lastPublishAt = now
        broadcaster.publish(machine.publish(at: now))
    }

    /// Publishes a coalesced change, or holds it until `publishInterval` after the last state
    /// (the timer wakes for it). Whatever changes meanwhile goes out with it, in one state.
    private func publishCoalesced() {
        guard publishPending else { return }
        if let last = lastPublishAt, now < last + publishInterval {
            if heldPublishAt == nil {
                heldPublishAt = last + publishInterval
                reschedule()
            }
            return
        }
        publishNow()
    }

    /// Progress weights for `graph` from the launches recorded so far.
    private func estimator(for graph: StepGraph) -> ProgressEstimator {
        ProgressEstimator(history: history.records, graph: graph)
    }

    /// Feeds the launch's record; a finished launch goes into the history.
    private func record(_ event: LaunchEvent) {
        if case .launchStarted(let launch) = event {
            recorder = LaunchRecorder(launch: launch, startedAtUnixMs: wallClockMs(), graph: machine.graph, settings: machine.settings)
        }
        recorder?.apply(event, atMs: (now - machine.launchStartedAt).milliseconds)
        if case .launchFinished = event, let record = recorder?.record {
            history = history.appending(record)
            if let historyStore {
                let snapshot = history
                Task { await historyStore.save(snapshot) }
            }
        }
    }

    /// Records the finished launch, and routes the inputs its quick-action step never saw.
    private func launchFinished(_ builtins: BuiltinServices) {
        builtins.launchFinished(logger: logger)
        let graph = machine.graph
        let broadcaster = self.broadcaster
        let logger = self.logger
        Task {
            for input in await builtins.leftoverInputs() {
                if let event = builtins.event(for: input, graph: graph, logger: logger) { broadcaster.broadcast(event: event) }
            }
        }
    }

    private func start(_ run: StepRun) {
        let continuation = self.continuation
        guard let plugin = plugins.plugin(named: run.step.plugin) else {
            // The graph was validated against the registry, so this is a bug; fail the step, not the daemon.
            let failure = StepFailure(code: ErrorInfo.Code.stepFailed, message: "plugin \(run.step.plugin) is not available", retryable: false)
            continuation.yield(.finished(token: run.token, result: .failure(failure)))
            return
        }
        var stepLogger = logger
        stepLogger[metadataKey: "step"] = "\(run.step.id)"
        stepLogger[metadataKey: "attempt"] = "\(run.attempt)"
        stepLogger[metadataKey: "launch"] = "\(run.launch)"
        let context = StepContext(run: run, logger: stepLogger) { report in
            continuation.yield(.report(token: run.token, report))
        }
        running[run.token] = Task {
            let result: Result<Facts, StepFailure>
            do {
                result = .success(try await plugin.run(context))
            } catch let failure as StepFailure {
                result = .failure(failure)
            } catch is CancellationError {
                result = .failure(StepFailure(code: "cancelled", message: "cancelled", retryable: false))
            } catch {
                result = .failure(StepFailure(code: ErrorInfo.Code.stepFailed, message: "\(error)", retryable: false))
            }
            continuation.yield(.finished(token: run.token, result: result))
        }
    }

    /// Arms the timer for the machine's next deadline. A timer already armed for that instant or
    /// earlier is kept: the next tick moves with every published change, and re-arming each
    /// time cost a task, a cancellation and two thread wake-ups per state. A timer that fires
    /// early wakes a no-op `advance(to:)`, which arms the next one.
    private func reschedule() {
        let deadline = [machine.nextDeadline, heldPublishAt].compactMap(\.self).min()
        if let armed = timer {
            if let deadline, armed.deadline <= deadline { return }
            armed.task.cancel()
            timer = nil
        }
        guard let deadline else { return }
        let instant = origin.advanced(by: deadline)
        let clock = self.clock
        let continuation = self.continuation
        timersArmed += 1
        let number = timersArmed
        let task = Task {
            do {
                try await clock.sleep(until: instant, tolerance: nil)
                continuation.yield(.timer(number))
            } catch {}
        }
        timer = (deadline, task, number)
    }

    private func stopAll() async {
        timer?.task.cancel()
        timer = nil
        let tasks = running.values
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        running = [:]
    }
}
