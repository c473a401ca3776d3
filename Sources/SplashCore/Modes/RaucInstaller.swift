public import SplashProtocol

/// RAUC's installer as splashd reads it (`de.pengutronix.rauc.Installer` on the system bus): its
/// property changes and `Completed` signal, turned into the update view's inputs. A value with no
/// I/O, as `ModeMachine` is.
///
/// - `Operation` `installing` begins the update.
/// - `Progress` (percentage, message, depth) moves the bar and says the message, as one input
///   (`step`: a state never pairs one step's percentage with another's message), while
///   installing (RAUC keeps its last progress after an install: a stale one read at the start is
///   no update).
/// - `LastError` is kept for the end.
/// - `Completed` 0: succeeded ("Restarting…"); anything else: failed, with `LastError`.
/// - An install that stops without `Completed` ends failed, with `LastError` when RAUC set one,
///   else "The update stopped": `Operation` back to `idle` (RAUC sends `Completed` first when it
///   ends an install itself), or RAUC leaving the bus (killed, restarted, stopped: `lost()`).
///   Otherwise the view, and the launch held behind it, would stay for good.
public struct RaucInstaller: Sendable, Equatable {
    /// What one signal (or the first reading) said; nil: it did not say.
    public struct Properties: Sendable, Equatable {
        public var operation: String?
        public var progress: (percentage: Int, message: String, depth: Int)?
        public var lastError: String?

        public init(operation: String? = nil, progress: (percentage: Int, message: String, depth: Int)? = nil, lastError: String? = nil) {
            self.operation = operation
            self.progress = progress
            self.lastError = lastError
        }

        public static func == (a: Properties, b: Properties) -> Bool {
            a.operation == b.operation && a.lastError == b.lastError && a.progress?.percentage == b.progress?.percentage
                && a.progress?.message == b.progress?.message && a.progress?.depth == b.progress?.depth
        }
    }

    /// Whether RAUC is installing, as far as its signals said.
    public private(set) var installing = false
    /// `LastError`, once RAUC set one in this install.
    public private(set) var lastError: String?

    public init() {}

    /// The error an install that stopped without `Completed` ends with, when RAUC set none.
    public static let stopped = "The update stopped"

    /// Properties changed (in the order RAUC sent them, `Operation` first when it is among them).
    public mutating func changed(_ properties: Properties) -> [ModeMachine.UpdateInput] {
        var inputs: [ModeMachine.UpdateInput] = []
        if properties.operation == "installing", !installing {
            installing = true
            lastError = nil
            if properties.progress == nil { inputs.append(.progress(0)) }
        }
        if let error = properties.lastError { lastError = error.isEmpty ? nil : error }
        if installing, let progress = properties.progress {
            inputs.append(.step(Double(min(100, max(0, progress.percentage))) / 100, message: progress.message))
        }
        if let operation = properties.operation, operation != "installing", installing {
            inputs += stop()
        }
        return inputs
    }

    /// RAUC left the bus (its name has no owner): an install under way ends failed.
    public mutating func lost() -> [ModeMachine.UpdateInput] {
        installing ? stop() : []
    }

    private mutating func stop() -> [ModeMachine.UpdateInput] {
        installing = false
        return [.ended(.failed, error: lastError ?? Self.stopped)]
    }

    /// `Completed(result)`.
    public mutating func completed(_ result: Int32) -> [ModeMachine.UpdateInput] {
        installing = false
        if result == 0 { return [.ended(.succeeded, error: nil)] }
        return [.ended(.failed, error: lastError ?? "RAUC's installation failed (result \(result))")]
    }
}
