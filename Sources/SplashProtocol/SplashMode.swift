public import SplashJSON

/// What the splash is for at the moment (every state says it: `mode`).
///
/// - `launch`: the app's launch, with the phases of `Phase` (the splash as it always was).
/// - `update`: an updater is installing (psplash's FIFO, RAUC, `splashctl update`): the logo, a
///   title, a progress bar, the updater's message and "Do not turn off the device". A launch that
///   is loading waits at the end of its work until the update is over.
/// - `shutdown`: the device is powering off or restarting: the logo and "Shutting down" or
///   "Restarting", until the power goes.
///
/// A shutdown outranks an update, an update the launch: the mode is the highest one asked for.
public enum SplashMode: String, Sendable, Equatable, CaseIterable, Codable {
    case launch
    case update
    case shutdown
}

/// How the device goes down in mode `shutdown`.
public enum ShutdownKind: String, Sendable, Equatable, CaseIterable, Codable {
    /// Power-off, halt: "Shutting down".
    case poweroff
    /// "Restarting" (a reboot, kexec or soft-reboot).
    case reboot
}

/// The update in progress (mode `update`), as a state carries it in `update`.
public struct UpdateStatus: Sendable, Equatable {
    /// Who drives it.
    public enum Source: String, Sendable, Equatable, CaseIterable, Codable {
        /// A writer of psplash's FIFO: SWUpdate's `swupdate-progress -p`, Mender's state scripts,
        /// `psplash-write`.
        case psplash
        /// RAUC's `de.pengutronix.rauc.Installer` on the system bus.
        case rauc
        /// `splashctl update` (the socket's `update` command).
        case splashctl
    }

    /// How far it got.
    public enum Result: String, Sendable, Equatable, CaseIterable, Codable {
        case running
        /// Installed: the view says "Restarting…" until the end view's time is up or the device
        /// goes down.
        case succeeded
        /// The updater failed: the view shows its error, with no buttons, until the end view's
        /// time is up.
        case failed
    }

    public var source: Source
    /// 0...1, as the updater says it (RAUC's percentage, psplash's `PROGRESS n` / 100).
    public var progress: Double
    /// The updater's last message (psplash's `MSG`, RAUC's progress message).
    public var message: String?
    public var result: Result
    /// Why it failed (RAUC's `LastError`), when `result` is `failed`.
    public var error: String?

    public init(source: Source, progress: Double = 0, message: String? = nil, result: Result = .running, error: String? = nil) {
        self.source = source
        self.progress = progress
        self.message = message
        self.result = result
        self.error = error
    }

    /// Reads a state's `update`.
    public init(json: JSONValue) throws(WireError) {
        let object = try WireObject(json, what: "update")
        source = try object.raw("source", as: Source.self)
        progress = try object.double("progress")
        message = try object.optionalString("message")
        result = try object.raw("result", as: Result.self)
        error = try object.optionalString("error")
    }

    /// Writes it in protocol order.
    public func write(to w: inout JSONWriter) {
        w.object { w in
            w.key("source"); w.string(source.rawValue)
            w.key("progress"); w.number((progress * 1000).rounded() / 1000)
            w.key("message"); w.string(message)
            w.key("result"); w.string(result.rawValue)
            if let error { w.key("error"); w.string(error) }
        }
    }
}
