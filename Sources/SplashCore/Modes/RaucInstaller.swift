/// RAUC's installer as splashd reads it (`de.pengutronix.rauc.Installer` on the system bus): its
/// property changes and `Completed` signal, turned into the update view's inputs. A value with no
/// I/O, as `ModeMachine` is.
///
/// - `Operation` `installing` begins the update.
/// - `Progress` (percentage, message, depth) moves the bar and says the message, while installing
///   (RAUC keeps its last progress after an install: a stale one read at the start is no update).
/// - `LastError` is kept for the end.
/// - `Completed` 0: succeeded ("Restarting…"); anything else: failed, with `LastError`.
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

    /// Properties changed (in the order RAUC sent them, `Operation` first when it is among them).
    public mutating func changed(_ properties: Properties) -> [ModeMachine.UpdateInput] {
        var inputs: [ModeMachine.UpdateInput] = []
        if let operation = properties.operation {
            if operation == "installing", !installing {
                installing = true
                lastError = nil
                if properties.progress == nil { inputs.append(.progress(0)) }
            } else if operation != "installing" {
                installing = false
            }
        }
        if let error = properties.lastError { lastError = error.isEmpty ? nil : error }
        if installing, let progress = properties.progress {
            inputs.append(.progress(Double(min(100, max(0, progress.percentage))) / 100))
            inputs.append(.message(progress.message))
        }
        return inputs
    }

    /// `Completed(result)`.
    public mutating func completed(_ result: Int32) -> [ModeMachine.UpdateInput] {
        installing = false
        if result == 0 { return [.ended(.succeeded, error: nil)] }
        return [.ended(.failed, error: lastError ?? "RAUC's installation failed (result \(result))")]
    }
}
