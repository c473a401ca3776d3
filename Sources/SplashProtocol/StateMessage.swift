public import SplashJSON

/// The `state` message: a full snapshot of the splash, sent on every change to subscribers.
///
/// States are snapshots, so a client that skipped some (a lagging subscriber) loses nothing:
/// the latest one says everything. `seq` grows by one with every change the daemon makes.
public struct StateMessage: Sendable, Equatable {
    /// One step as renderers and operators see it.
    public struct Step: Sendable, Equatable {
        public var id: String
        public var status: StepStatus
        /// Attempts made so far in this launch.
        public var attempt: Int
        /// Time since the step's first attempt started (to its end once finished); 0 before it starts.
        public var durationMs: Int64
        public var label: String?
        public var critical: Bool
        /// Why the step failed or was skipped, or why it is waiting to retry (for operators).
        public var reason: String?

        public init(id: String, status: StepStatus, attempt: Int, durationMs: Int64, label: String? = nil, critical: Bool = true, reason: String? = nil) {
            self.id = id
            self.status = status
            self.attempt = attempt
            self.durationMs = durationMs
            self.label = label
            self.critical = critical
            self.reason = reason
        }

        /// Reads one element of a state's `steps`.
        public init(json: JSONValue) throws(WireError) {
            let object = try WireObject(json, what: "step")
            id = try object.string("id")
            status = try object.raw("status", as: StepStatus.self)
            attempt = Int(try object.int("attempt"))
            durationMs = try object.int("duration_ms")
            label = try object.optionalString("label")
            critical = try object.optionalBool("critical") ?? true
            reason = try object.optionalString("reason")
        }
    }

    /// Echo of the request's `id` when this state answers a `state` command.
    public var id: JSONValue?
    public var seq: UInt64
    public var launch: String
    public var phase: Phase
    /// Why the launch began (`boot`, `relaunch`, `reload`, `app-exited`, `app-hung`, `resume`).
    public var reason: LaunchReason
    /// True once the launch has been loading for `slow_after`: show an indicator.
    public var slow: Bool
    /// 0...1, never decreasing within a launch, 1 from `dismissing` on.
    public var progress: Double
    /// What to show under the logo: the running step's message or label, or the error's message.
    public var message: String?
    public var elapsedMs: Int64
    /// The expected time until `dismissing`, when the launch history allows an estimate.
    public var etaMs: Int64?
    public var steps: [Step]
    /// Set in phase `error`.
    public var error: ErrorInfo?
    /// Set in `dismissing` and `finished`, and in `loading` once only `signal` steps are left
    /// (see `LaunchMachine.destination`).
    public var destination: Destination?
    /// What the splash is for now (`launch` unless an update or a shutdown has it).
    public var mode: SplashMode = .launch
    /// The update, in mode `update`.
    public var update: UpdateStatus?
    /// How the device goes down, in mode `shutdown`.
    public var shutdown: ShutdownKind?

    public init(
        id: JSONValue? = nil, seq: UInt64, launch: String, phase: Phase, reason: LaunchReason = .boot, slow: Bool,
        progress: Double, message: String?, elapsedMs: Int64, etaMs: Int64? = nil, steps: [Step], error: ErrorInfo?,
        destination: Destination?
    ) {
        self.reason = reason
        self.etaMs = etaMs
        self.id = id
        self.seq = seq
        self.launch = launch
        self.phase = phase
        self.slow = slow
        self.progress = progress
        self.message = message
        self.elapsedMs = elapsedMs
        self.steps = steps
        self.error = error
        self.destination = destination
    }

    /// Reads a `state` message (its `type` is the caller's to check).
    public init(json: JSONValue) throws(WireError) {
        let object = try WireObject(json, what: "state")
        id = object["id"]
        let seq = try object.int("seq")
        guard seq >= 0 else { throw object.fail("seq", "a whole number from 0") }
        self.seq = UInt64(seq)
        launch = try object.string("launch")
        phase = try object.raw("phase", as: Phase.self)
        // Daemons before 0.2 sent no reason; their launches were all boots or relaunches.
        reason = try object.optionalRaw("reason", as: LaunchReason.self) ?? .boot
        slow = try object.bool("slow")
        progress = try object.double("progress")
        message = try object.optionalString("message")
        elapsedMs = try object.int("elapsed_ms")
        etaMs = try object.optionalInt("eta_ms")
        steps = try object.array("steps", Step.init(json:))
        error = try object.optional("error", ErrorInfo.init(json:))
        destination = try object.optional("destination", Destination.init(json:))
        // Daemons before 0.3 had no modes: every state was a launch's.
        mode = try object.optionalRaw("mode", as: SplashMode.self) ?? .launch
        update = try object.optional("update", UpdateStatus.init(json:))
        shutdown = try object.optionalRaw("shutdown", as: ShutdownKind.self)
        if mode == .update, update == nil { throw object.fail("update", "an object in mode update") }
        if mode == .shutdown, shutdown == nil { throw object.fail("shutdown", "poweroff or reboot in mode shutdown") }
    }

    /// Writes the message in protocol order: `type`, `seq`, `launch`, `phase`, ..., `destination`,
    /// `mode` and the mode's `update` or `shutdown`.
    public func write(to w: inout JSONWriter) {
        w.object { w in
            w.key("type"); w.string("state")
            if let id { w.key("id"); w.value(id) }
            w.key("seq"); w.int(Int64(seq))
            w.key("launch"); w.string(launch)
            w.key("phase"); w.string(phase.rawValue)
            w.key("reason"); w.string(reason.rawValue)
            w.key("slow"); w.bool(slow)
            w.key("progress"); w.number((progress * 1000).rounded() / 1000)
            w.key("message"); w.string(message)
            w.key("elapsed_ms"); w.int(elapsedMs)
            if let etaMs { w.key("eta_ms"); w.int(etaMs) }
            w.key("steps")
            w.array { w in
                for step in steps {
                    w.object { w in
                        w.key("id"); w.string(step.id)
                        w.key("status"); w.string(step.status.rawValue)
                        w.key("attempt"); w.int(Int64(step.attempt))
                        w.key("duration_ms"); w.int(step.durationMs)
                        if let label = step.label { w.key("label"); w.string(label) }
                        w.key("critical"); w.bool(step.critical)
                        if let reason = step.reason { w.key("reason"); w.string(reason) }
                    }
                }
            }
            w.key("error")
            if let error { error.write(to: &w) } else { w.null() }
            w.key("destination")
            if let destination { destination.write(to: &w) } else { w.null() }
            w.key("mode"); w.string(mode.rawValue)
            if let update { w.key("update"); update.write(to: &w) }
            if let shutdown { w.key("shutdown"); w.string(shutdown.rawValue) }
        }
    }
}

extension StateMessage {
    /// The state without what time alone moves: `seq`, `elapsed_ms`, `eta_ms`, the steps'
    /// `duration_ms` and `progress` (which tracks time once launches have history, and otherwise
    /// moves only with a step's status). Two states equal so differ only by the clock: a
    /// subscriber without ticks is sent the second one not at all.
    public var withoutClocks: StateMessage {
        var state = self
        state.id = nil
        state.seq = 0
        state.elapsedMs = 0
        state.etaMs = nil
        state.progress = 0
        for index in state.steps.indices { state.steps[index].durationMs = 0 }
        return state
    }
}
