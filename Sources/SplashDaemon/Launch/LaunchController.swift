#if canImport(Glibc)
public import Glibc
#endif
public import Logging
public import SplashCore
import SplashJSON
public import SplashBuiltins
import SplashPlugins
public import SplashProtocol

/// Runs launches: owns the `LaunchMachine`, runs step attempts through plugins, keeps time with an
/// injected `Clock`, and publishes every new state to the broadcaster.
///
/// One ordered event loop, as swift-service-lifecycle's `ServiceGroup` is: every input — a
/// plugin's report or result, a timer, a client's command (carrying its reply), a report query,
/// a reload, the watchdog's heartbeat — is an `Input` in one stream consumed by `run()`, and each
/// is applied in one turn with no suspension between checking the state and acting on it. So a
/// plugin's last progress report is never applied after its result, and a `complete` sent for a
/// new launch is never wiped by the reset of a `relaunch` that arrived before it: what a launch
/// resets at its start is an action the machine returns (`resetLaunchInputs`), carried out in
/// the same turn as the transition.
///
/// The parts around the machine are components of their own: `LaunchHistory` (records, the log
/// and its saves), `LaunchReports`, `ClientCommands`, `PublishPacer` (coalescing) and
/// `DeadlineTimer`. The timer wakes at the machine's `nextDeadline` exactly; there is no polling.
public actor LaunchController<C: Clock>: CommandHandler where C.Duration == Duration {
    /// A configuration read on SIGHUP, taken up by the next launch.
    struct Reload: Sendable {
        var graph: StepGraph
        var settings: SplashSettings
        var plugins: PluginRegistry
    }

    /// Everything the loop applies, in the order it arrived.
    enum Input: Sendable {
        case finished(token: UInt64, result: Result<Facts, StepFailure>)
        /// An attempt of the background check (`resume`) ended.
        case checked(token: UInt64, result: Result<Facts, StepFailure>)
        /// The app's unit changed, or the watch of it lost the bus.
        case appUnit(AppUnitEvent)
        case report(token: UInt64, StepReport)
        /// The timer armed with this number fired.
        case timer(UInt64)
        /// Publish the coalesced state, once every input queued before it has been applied.
        case flush
        /// A client's command; `sender`: its process, when the socket told.
        case command(Request.Command, sender: pid_t?, reply: @Sendable (Result<Void, ProtocolError>) -> Void)
        case query(Report, reply: @Sendable (Result<ReportAnswer, ProtocolError>) -> Void)
        case reload(Reload)
        /// The watchdog's probe: answered when the loop gets to it.
        case heartbeat(reply: @Sendable () -> Void)
        /// An updater's word from outside the socket (psplash's FIFO, RAUC).
        case updater(ModeMachine.UpdateInput, source: UpdateStatus.Source)

        /// Answers an input that will not be applied: the controller has stopped.
        func refuse() {
            let stopping = ProtocolError(code: .unavailable, message: "splashd is stopping")
            switch self {
            case .command(_, _, let reply): reply(.failure(stopping))
            case .query(_, let reply): reply(.failure(stopping))
            case .heartbeat(let reply): reply()
            case .finished, .checked, .appUnit, .report, .timer, .flush, .reload, .updater: break
            }
        }
    }

    /// States are published at least this often while steps run.
    static var tickInterval: Duration { .milliseconds(100) }

    /// The daemon's `publishInterval`: about one frame of a 60 Hz display. A renderer cannot show
    /// states faster, and a 200-step graph of quick plugins otherwise published one full state
    /// (22 kB, to every subscriber) for every two or three step results.
    public static var defaultPublishInterval: Duration { .milliseconds(16) }

    var machine: LaunchMachine
    var plugins: PluginRegistry
    /// A reloaded configuration, taken up by the next launch.
    private var reloaded: Reload?
    let clock: C
    let origin: C.Instant
    let broadcaster: StateBroadcaster
    let logger: Logger
    let makeLaunchID: @Sendable () -> String
    private let inputs: AsyncStream<Input>
    let continuation: AsyncStream<Input>.Continuation
    /// Attempts in flight (including cancelled ones still tearing down), by token.
    private var running: [UInt64: Task<Void, Never>] = [:]
    private var timer: DeadlineTimer<C>
    var pacer: PublishPacer
    var history: LaunchHistory
    let commands: ClientCommands
    /// The app's life after `finished` (design §14), when `[app]` is set.
    var app: AppLife?
    /// The bus the app's unit is watched and started on, the ledger of its recoveries, and the
    /// `app` step's relay of the starts it queued.
    let appLink: AppLink?
    /// The background check of a `resume`: a machine of its own whose states are never
    /// published (see docs/architecture.md, "Resume"), and which resumes are logged.
    var resumeCheck = ResumeCheck()
    /// Attempts of the background check in flight, by token.
    var checking: [UInt64: Task<Void, Never>] = [:]
    /// The app watch's verdict from the turn's actions, carried out at the end of the turn.
    var verdict: AppWatch.Verdict?
    /// A quick input the resume check took, handed to the next launch's quick-action step.
    var carried: QuickInput?
    /// The update and shutdown views (design §15): what mode every state says.
    var modes: ModeMachine
    /// How many of the modes' everyday records (an update's start, `QUIT`, a change of mode) go
    /// to the journal in full.
    var modeLogLimit = LogLimit(burst: 20)

    /// - Parameters:
    ///   - history: the launches recorded so far, and where finished ones are saved.
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
        history: LaunchHistory = LaunchHistory(),
        app: AppLink? = nil,
        publishInterval: Duration = .zero,
        updateEndView: Duration = .seconds(10),
        logger: Logger,
        makeLaunchID: @escaping @Sendable () -> String
    ) {
        self.machine = Self.makeMachine(graph: graph, settings: settings, history: history)
        self.plugins = plugins
        self.clock = clock
        self.origin = clock.now
        self.broadcaster = broadcaster
        self.logger = logger
        self.makeLaunchID = makeLaunchID
        self.timer = DeadlineTimer(clock: clock, origin: origin)
        self.pacer = PublishPacer(interval: publishInterval)
        self.history = history
        self.commands = ClientCommands(builtins: builtins, broadcaster: broadcaster, logger: logger)
        self.app = app.map { AppLife(settings: $0.settings) }
        self.appLink = app
        self.modes = ModeMachine(endView: updateEndView)
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
    }

    // MARK: Inputs from outside

    /// Carries out a client's command in its turn of the loop.
    public nonisolated func handle(_ command: Request.Command) async -> Result<Void, ProtocolError> {
        await handle(command, from: nil)
    }

    /// Carries out a command of process `sender` (nil: unknown) in its turn of the loop.
    public nonisolated func handle(_ command: Request.Command, from sender: pid_t?) async -> Result<Void, ProtocolError> {
        await withCheckedContinuation { reply in send(command, from: sender) { reply.resume(returning: $0) } }
    }

    /// Queues a client's command without waiting for it; `reply` gets its outcome.
    package nonisolated func send(
        _ command: Request.Command, from sender: pid_t? = nil, reply: @escaping @Sendable (Result<Void, ProtocolError>) -> Void
    ) {
        submit(.command(command, sender: sender, reply: reply))
    }

    /// Answers a read-only report about the graph and the launches recorded, in the loop's order
    /// (a report asked right after `finished` describes that launch).
    public nonisolated func report(_ report: Report) async -> Result<ReportAnswer, ProtocolError> {
        await withCheckedContinuation { reply in submit(.query(report) { reply.resume(returning: $0) }) }
    }

    /// Keeps a new configuration for the next launch (the running one is never changed midway).
    public nonisolated func reload(graph: StepGraph, settings: SplashSettings, plugins: PluginRegistry) {
        submit(.reload(Reload(graph: graph, settings: settings, plugins: plugins)))
    }

    /// Returns once the loop has applied every input queued before it: the watchdog's probe.
    public nonisolated func heartbeat() async {
        await withCheckedContinuation { reply in submit(.heartbeat { reply.resume() }) }
    }

    nonisolated func submit(_ input: Input) {
        if case .terminated = continuation.yield(input) { input.refuse() }
    }

    // MARK: The loop

    /// A machine for `graph` as the controller runs it: ticking for progress, estimating from the
    /// launches of the same graph recorded in `history`, its states numbered on from `seq`.
    static func makeMachine(graph: StepGraph, settings: SplashSettings, seq: UInt64 = 0, history: LaunchHistory) -> LaunchMachine {
        var machine = LaunchMachine(graph: graph, settings: settings, seq: seq)
        machine.tickInterval = tickInterval
        machine.estimator = history.estimator(for: graph)
        return machine
    }

    /// Time since the controller was made, in the machine's terms.
    var now: Duration { origin.duration(to: clock.now) }

    /// Starts the first launch and applies inputs until the calling task is cancelled; then
    /// cancels every attempt, waits until their plugins are torn down and the history is saved.
    /// Call it once.
    public func run() async {
        let watching = watchApp()
        let held = restoreRecoveries()
        apply(machine.start(launch: makeLaunchID(), holding: held, at: now))
        for await input in inputs {
            guard !Task.isCancelled else {
                input.refuse()
                continue
            }
            process(input)
        }
        watching?()
        await stop()
    }

    /// Applies one input. Synchronous: nothing else happens between its check and its effect.
    private func process(_ input: Input) {
        switch input {
        case .finished(let token, let result):
            running[token] = nil
            apply(machine.stepFinished(token: token, result: result, at: now), coalescing: true)
        case .checked(let token, let result):
            checking[token] = nil
            checkFinished(token: token, result: result)
        case .appUnit(let event):
            appUnitChanged(event)
            reschedule()
        case .report(let token, .progress(let fraction)):
            apply(machine.stepReported(token: token, fraction: fraction, at: now), coalescing: true)
        case .report(let token, .message(let message)):
            apply(machine.stepReported(token: token, message: message, at: now), coalescing: true)
        case .timer(let number):
            timer.fired(number)
            apply(machine.advance(to: now), coalescing: true)
            apply(modes.advance(to: now), urgent: false)
            advanceApp()
            advanceCheck()
            if pacer.isDue(at: now) { publishNow() }
        case .flush:
            if pacer.flush(at: now) { publishNow() } else { reschedule() }
        case .command(let command, let sender, let reply):
            reply(carryOut(command, from: sender))
            // `alive` moves the heartbeat's deadline, `resume` may start a check.
            reschedule()
        case .query(let report, let reply):
            reply(LaunchReports.answer(report, graph: machine.graph, history: history))
        case .reload(let configuration):
            reloaded = configuration
        case .heartbeat(let reply):
            reply()
        case .updater(let input, let source):
            apply(modes.update(input, from: source, at: now), urgent: false)
        }
    }

    private func carryOut(_ command: Request.Command, from sender: pid_t?) -> Result<Void, ProtocolError> {
        switch command {
        case .retry:
            let crashLoop = machine.error?.code == .appCrashLoop
            let result = change(.retry)
            if crashLoop, case .success = result {
                app?.forgetRecoveries()
                saveRecoveries(crashLoop: false)
                logger.notice("retry after the app's crash loop: the count starts again and the app is started")
            }
            return result
        case .continueOffline: return change(.continueOffline)
        case .dismissed: return change(.dismissed)
        case .relaunch:
            guard machine.phase == .finished else { return change(.relaunch(launch: makeLaunchID())) }
            beginLaunch(.relaunch)
            return .success(())
        case .alive: return alive()
        case .route(let route): return appReported(route: route)
        case .resume: return resume()
        case .complete(let step):
            if let refusal = replacedAppSent(step, from: sender) { return .failure(refusal) }
            return commands.complete(step, graph: machine.graph, plugins: plugins)
        case .action(let name):
            return quickInput(.action(name))
        case .open(let url):
            return quickInput(.open(url))
        case .signIn(let session):
            return commands.signIn(session, graph: machine.graph)
        case .signOut:
            return commands.signOut(graph: machine.graph)
        case .update(let input):
            apply(modes.update(input, from: .splashctl, at: now), urgent: true)
            return .success(())
        case .shutdown(let kind):
            apply(modes.shutDown(kind, at: now), urgent: true)
            return .success(())
        case .ping, .state, .subscribe, .subscribeWithoutTicks, .report:
            return .success(())
        }
    }

    /// `action` / `open`: the quick-action step's facts when it already ran and the launch is
    /// still loading, else queued for it or routed as an event (`ClientCommands.quickInput`).
    private func quickInput(_ input: QuickInput) -> Result<Void, ProtocolError> {
        let step = machine.graph.steps.firstIndex { $0.plugin == BuiltinPlugin.quickAction.name }
        let done = step.map { machine.steps[$0].status == .succeeded } ?? false
        return commands.quickInput(input, phase: machine.phase, graph: machine.graph, quickActionDone: done) { facts in
            guard let step, let actions = machine.amendFacts(facts, ofStep: machine.graph.steps[step].id, at: now) else { return false }
            apply(actions)
            return true
        }
    }

    /// Begins a launch from `finished` for `reason`: a reloaded configuration takes over here (a
    /// `relaunch` then counts as `reload`), the app's step is told what to do, and a launch that
    /// brings the app back knows where it was.
    func beginLaunch(_ reason: LaunchReason, holding: ErrorInfo? = nil) {
        var reason = reason
        if let reloaded {
            // The reloaded graph takes over at a launch boundary; seq keeps counting.
            machine = Self.makeMachine(graph: reloaded.graph, settings: reloaded.settings, seq: machine.seq, history: history)
            plugins = reloaded.plugins
            self.reloaded = nil
            holdAsBefore()
            logger.notice("the reloaded configuration takes effect with this launch")
            if reason == .relaunch { reason = .reload }
        }
        endCheck()
        if machine.phase != .finished {
            // A launch in place of the one that is up (the app died before its first frame):
            // that one's attempts end here.
            for task in running.values { task.cancel() }
            running = [:]
        }
        // Computed before the launch starts: its start forgets the route (`.launchStarted`).
        let place = reason.recoversApp ? restoration() : nil
        apply(machine.start(launch: makeLaunchID(), reason: reason, holding: holding, restoring: place, at: now))
    }

    /// A phase command: applied with its actions, or refused with nothing changed.
    func change(_ command: LaunchMachine.Command) -> Result<Void, ProtocolError> {
        do {
            apply(try machine.apply(command, at: now))
            return .success(())
        } catch {
            return .failure(ProtocolError(code: error.code, message: error.message))
        }
    }

    // MARK: Carrying out actions

    /// Carries out `actions`. With `coalescing`, a state change is published once every input
    /// already queued has been applied (one state for a burst of step results), except a phase
    /// change, which is published at once: subscribers never miss a phase.
    func apply(_ actions: [LaunchAction], coalescing: Bool = false) {
        var phaseChanged = false
        var changed = false
        for action in actions {
            switch action {
            case .resetLaunchInputs:
                commands.resetLaunchInputs(plugins: plugins)
                if let carried {
                    commands.builtins?.post(carried)
                    self.carried = nil
                }
            case .start(let run): start(run)
            case .cancel(_, let token): running[token]?.cancel()
            case .event(let event):
                LaunchLog.log(event, launch: machine.launch, to: logger)
                history.record(event, of: machine, atMs: (now - machine.launchStartedAt).milliseconds)
                switch event {
                case .phaseChanged: phaseChanged = true
                case .launchStarted(_, let reason):
                    app?.launchBegan(recoveringTheApp: reason.recoversApp)
                case .launchFinished(_, let destination, _):
                    commands.launchFinished(graph: machine.graph)
                    // The next launch's progress learns from this one.
                    machine.estimator = history.estimator(for: machine.graph)
                    launchFinished(at: destination)
                default: break
                }
            case .publish: changed = true
            }
        }
        if changed {
            switch pacer.changed(urgent: !coalescing || phaseChanged) {
            case .publish: publishNow()
            case .queueFlush: continuation.yield(.flush)
            case .wait: break
            }
        }
        if let verdict {
            self.verdict = nil
            carryOut(verdict)
        }
        reschedule()
    }

    func publishNow() {
        let now = self.now
        guard pacer.publishing(at: now) else { return }
        broadcaster.publish(decorated(machine.publish(at: now)))
    }

    /// Starts an attempt; its result comes back as `.finished`, or as `.checked` for the
    /// background check's (`background`).
    func start(_ run: StepRun, background: Bool = false) {
        let continuation = self.continuation
        guard let plugin = plugins.plugin(named: run.step.plugin) else {
            // The graph was validated against the registry, so this is a bug; fail the step, not the daemon.
            let failure = StepFailure(code: .stepFailed, message: "plugin \(run.step.plugin) is not available", retryable: false)
            continuation.yield(background ? .checked(token: run.token, result: .failure(failure)) : .finished(token: run.token, result: .failure(failure)))
            return
        }
        var stepLogger = logger
        stepLogger[metadataKey: "step"] = "\(run.step.id)"
        stepLogger[metadataKey: "attempt"] = "\(run.attempt)"
        stepLogger[metadataKey: "launch"] = "\(run.launch)"
        let context = StepContext(run: run, logger: stepLogger) { report in
            // The background check publishes nothing: its progress is not shown.
            if !background { continuation.yield(.report(token: run.token, report)) }
        }
        let task = Task {
            let result: Result<Facts, StepFailure>
            do {
                result = .success(try await plugin.run(context))
            } catch let failure as StepFailure {
                result = .failure(failure)
            } catch is CancellationError {
                result = .failure(StepFailure(code: .cancelled, message: "cancelled", retryable: false))
            } catch {
                result = .failure(StepFailure(code: .stepFailed, message: "\(error)", retryable: false))
            }
            continuation.yield(background ? .checked(token: run.token, result: result) : .finished(token: run.token, result: result))
        }
        if background { checking[run.token] = task } else { running[run.token] = task }
    }

    /// Arms the timer for the machine's next deadline or a held state, whichever is first.
    func reschedule() {
        let deadline = [machine.nextDeadline, pacer.heldUntil, app?.watch.nextDeadline, resumeCheck.nextDeadline, modes.nextDeadline]
            .compactMap(\.self).min()
        let continuation = self.continuation
        timer.arm(for: deadline) { continuation.yield(.timer($0)) }
    }

    /// The loop ended: stop every attempt and wait for their teardown and the history's saves.
    private func stop() async {
        continuation.finish()
        timer.cancel()
        let tasks = Array(running.values) + Array(checking.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        running = [:]
        checking = [:]
        await history.finishSaving()
    }
}
