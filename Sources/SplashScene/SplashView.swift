import SplashCore
public import SplashProtocol
public import SplashTheme

/// What the splash shows, from the latest state: the part of a `StateMessage` a renderer draws,
/// with the theme's words for errors already chosen (as the page does, design §10).
public struct SplashView: Sendable, Equatable {
    /// The error view's button a renderer draws and hit-tests.
    public enum Button: String, Sendable, CaseIterable {
        case retry
        case continueOffline = "continue-offline"

        /// The button's words.
        public var title: String { self == .retry ? "Retry" : "Continue offline" }
    }

    /// The error view (phase `error`).
    public struct ErrorView: Sendable, Equatable {
        public var title: String
        public var detail: String?
        /// The buttons offered, in the order drawn (Retry first).
        public var buttons: [Button]

        public init(title: String, detail: String? = nil, buttons: [Button]) {
            self.title = title
            self.detail = detail
            self.buttons = buttons
        }
    }

    /// The update or shutdown view (mode `update` or `shutdown`): in place of the launch's status,
    /// indicator and error view.
    public struct ModeView: Sendable, Equatable {
        /// "Installing update", "Restarting…", "Update failed", "Shutting down", "Restarting".
        public var title: String
        /// The update's bar, 0...1 (nil: none, as in a failed update's view and the shutdown view).
        public var progress: Double?
        /// The updater's message, or its error.
        public var message: String?
        /// "Do not turn off the device" (not once the update failed, nor at shutdown).
        public var warning: String?
        /// The update failed: the title in the error colour, under the error icon.
        public var failed: Bool

        public init(title: String, progress: Double? = nil, message: String? = nil, warning: String? = nil, failed: Bool = false) {
            self.title = title
            self.progress = progress
            self.message = message
            self.warning = warning
            self.failed = failed
        }

        /// The view of a state in mode `update` or `shutdown`; nil in mode `launch`.
        public init?(state: StateMessage, texts: Theme.ModeTexts) {
            switch state.mode {
            case .launch:
                return nil
            case .shutdown:
                self.init(title: state.shutdown == .reboot ? texts.reboot : texts.poweroff)
            case .update:
                let update = state.update ?? UpdateStatus(source: .splashctl)
                switch update.result {
                case .running:
                    self.init(title: texts.updating, progress: update.progress, message: update.message, warning: texts.warning)
                case .succeeded:
                    self.init(title: texts.succeeded, progress: 1, message: update.message, warning: texts.warning)
                case .failed:
                    self.init(title: texts.failed, message: update.error ?? update.message, failed: true)
                }
            }
        }
    }

    public var phase: Phase
    /// The update or shutdown view, when a mode other than `launch` has the display.
    public var mode: ModeView?
    public var slow: Bool
    /// 0...1.
    public var progress: Double
    /// The running step's label (shown when the theme asks, in `loading`).
    public var step: String?
    public var error: ErrorView?
    /// The launch's tagline, for a theme with `taglines` (one chosen per launch, as the page
    /// chooses it: `tagline(for:in:)`); nil until a state names the launch.
    public var tagline: String?

    public init(phase: Phase = .loading, slow: Bool = false, progress: Double = 0, step: String? = nil, error: ErrorView? = nil,
                tagline: String? = nil, mode: ModeView? = nil) {
        self.tagline = tagline
        self.mode = mode
        self.phase = phase
        self.slow = slow
        self.progress = progress
        self.step = step
        self.error = error
    }

    /// The page's choice of one of `taglines` for `launch` (renderer/web/splash.js): FNV-1a of
    /// the launch id's UTF-16 code units, modulo the count. The same launch shows the same line
    /// on both renderers, after a reconnect too; ids are random, so launches vary.
    public static func tagline(for launch: String, in taglines: [String]) -> String? {
        guard !taglines.isEmpty else { return nil }
        var hash: UInt32 = 0x811C_9DC5
        for unit in launch.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 0x0100_0193
        }
        return taglines[Int(hash % UInt32(taglines.count))]
    }

    /// The designs' detail line under "Unable to connect".
    public static let networkDetail = "Please check your internet connection"

    /// The view of `state` in `theme`: in `error`, the theme's `[errors.CODE]` words or the state's
    /// message (and the network detail line for `network`), and the buttons its actions offer.
    /// Only what the theme shows is kept (progress and the step's label when it asks), so two
    /// states that look the same are equal views and a renderer draws nothing for the second.
    public init(state: StateMessage, theme: Theme) {
        self.init(
            phase: state.phase, slow: state.slow, progress: theme.showProgress ? state.progress : 0,
            step: theme.showStep && state.phase == .loading ? state.message : nil,
            tagline: Self.tagline(for: state.launch, in: theme.taglines))
        if let mode = ModeView(state: state, texts: theme.modeTexts) {
            // The launch under it is not shown: no indicator, no error, no step.
            self.mode = mode
            slow = false
            step = nil
            return
        }
        if state.phase == .error, let info = state.error {
            let words = theme.errorTexts[info.code.rawValue]
            let title = words?.title ?? (info.message.isEmpty ? "Something went wrong" : info.message)
            let detail = words?.detail ?? (info.code == .network ? Self.networkDetail : nil)
            var buttons: [Button] = []
            if info.actions.contains(.retry) { buttons.append(.retry) }
            if info.actions.contains(.continueOffline) { buttons.append(.continueOffline) }
            error = ErrorView(title: title, detail: detail, buttons: buttons)
        }
    }
}
