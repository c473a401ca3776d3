import SplashCore
public import SplashProtocol

/// The live view `splashctl watch` draws on a terminal: a bar and the running steps, redrawn in place.
public enum ProgressBarRenderer {
    /// The lines for `state`: the bar with percentage, phase and ETA, then what runs (or the error,
    /// or the destination).
    public static func lines(_ state: StateMessage, width: Int = 30) -> [String] {
        let clamped = min(max(state.progress.isFinite ? state.progress : 0, 0), 1)
        let filled = Int((clamped * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var head = "[\(bar)] \(StatusRenderer.percent(state.progress).leftPadded(to: 4))  \(state.phase.rawValue)"
        if let eta = state.etaMs, state.phase == .loading { head += "  eta \(StatusRenderer.duration(ms: eta))" }
        head += "  \(StatusRenderer.duration(ms: state.elapsedMs))"
        let detail: String
        switch state.phase {
        case .loading:
            let running = state.steps.filter { $0.status == .running }.map { step in
                (step.label ?? step.id) + (step.attempt > 1 ? " (attempt \(step.attempt))" : "")
            }
            detail = running.isEmpty ? (state.message ?? "") : running.joined(separator: " · ")
        case .error:
            let actions = state.error?.actions.map(\.rawValue).joined(separator: ", ") ?? ""
            detail = "\(state.error?.message ?? "error")" + (actions.isEmpty ? "" : "  [\(actions)]")
        case .dismissing:
            detail = "dismissing"
        case .finished:
            var text = "-> \(state.destination?.screen.rawValue ?? "home")"
            if let route = state.destination?.route { text += " \(route)" }
            if let sheet = state.destination?.sheet { text += " sheet \(sheet)" }
            detail = text
        }
        return [head, "  " + detail]
    }

    /// Escape sequences that move the cursor back over `lineCount` lines drawn before and clear them.
    public static func rewind(lineCount: Int) -> String {
        guard lineCount > 0 else { return "" }
        return String(repeating: "\u{1B}[1A", count: lineCount) + "\r\u{1B}[J"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
