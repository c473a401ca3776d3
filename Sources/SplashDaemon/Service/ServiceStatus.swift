import SplashCore
public import SplashProtocol

/// The one-line `STATUS=` systemd shows for the service, from a state.
public enum ServiceStatus {
    /// E.g. `loading 42%: Signing in, Loading configuration`, `error: Unable to connect (auth-refresh)`,
    /// `finished: home /orders/42`.
    public static func line(for state: StateMessage) -> String {
        // An update or a shutdown says so first (`update 42%: Copying image`, `shutdown: reboot`).
        if state.mode == .shutdown { return "shutdown: \(state.shutdown?.rawValue ?? "?")" }
        if state.mode == .update, let update = state.update {
            let head = update.result == .running ? "update \(Int((update.progress * 100).rounded(.down)))%" : "update \(update.result.rawValue)"
            let text = update.result == .failed ? update.error ?? update.message : update.message
            return text.map { "\(head): \($0)" } ?? head
        }
        let percent = Int((state.progress * 100).rounded(.down))
        switch state.phase {
        case .loading:
            let running = state.steps.filter { $0.status == .running }.map { $0.label ?? $0.id }
            return running.isEmpty ? "loading \(percent)%" : "loading \(percent)%: \(running.joined(separator: ", "))"
        case .error:
            let error = state.error
            return "error: \(error?.message ?? "unknown")" + (error?.step.map { " (\($0))" } ?? "")
        case .dismissing:
            return "dismissing"
        case .finished:
            var text = "finished: \(state.destination?.screen.rawValue ?? "home")"
            if let route = state.destination?.route { text += " \(route)" }
            if let sheet = state.destination?.sheet { text += " sheet \(sheet)" }
            return text
        }
    }
}
