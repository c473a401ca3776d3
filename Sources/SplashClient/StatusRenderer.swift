import SplashCore
public import SplashProtocol

/// Renders states for people: the `splashctl status` table and the `splashctl watch` lines.
public enum StatusRenderer {
    /// The status table: a header line, the message, one row per step, then error or destination.
    ///
    /// ```
    /// phase: loading  progress: 42%  slow: yes  elapsed: 1.2s  launch: 6f1c
    /// message: Signing in
    ///
    /// ID            STATUS     ATTEMPT  DURATION  LABEL
    /// auth-refresh  running    1        812ms     Signing in
    /// ```
    ///
    /// A `REASON` column appears when some step has a reason. Ends with a newline.
    /// The mode beside the launch, when there is one: `mode: update (rauc) 42%: Copying image`,
    /// `mode: update (rauc) failed: signature verification failed`, `mode: shutdown (reboot)`.
    public static func modeLine(_ state: StateMessage) -> String? {
        switch state.mode {
        case .launch:
            return nil
        case .shutdown:
            return "mode: shutdown (\(state.shutdown?.rawValue ?? "?"))"
        case .update:
            guard let update = state.update else { return "mode: update" }
            var line = "mode: update (\(update.source.rawValue))"
            switch update.result {
            case .running: line += " \(percent(update.progress))"
            case .succeeded: line += " succeeded"
            case .failed: line += " failed"
            }
            if let text = update.result == .failed ? update.error ?? update.message : update.message { line += ": \(text)" }
            return line
        }
    }

    public static func table(_ state: StateMessage) -> String {
        var lines: [String] = []
        lines.append(
            "phase: \(state.phase.rawValue)  progress: \(percent(state.progress))  slow: \(state.slow ? "yes" : "no")"
                + "  elapsed: \(duration(ms: state.elapsedMs))  launch: \(state.launch)"
        )
        if let message = state.message { lines.append("message: \(message)") }
        if let mode = modeLine(state) { lines.append(mode) }
        lines.append("")

        var rows: [[String]] = [["ID", "STATUS", "ATTEMPT", "DURATION", "LABEL"]]
        for step in state.steps {
            rows.append([step.id, step.status.rawValue, String(step.attempt), duration(ms: step.durationMs), step.label ?? "-"])
        }
        if state.steps.contains(where: { $0.reason != nil }) {
            rows[0].append("REASON")
            for (index, step) in state.steps.enumerated() { rows[index + 1].append(step.reason ?? "") }
        }
        lines.append(contentsOf: aligned(rows))

        if state.phase == .error, let error = state.error {
            lines.append("")
            let step = error.step.map { " (step \($0))" } ?? ""
            lines.append("error: \(error.code)\(step): \(error.message)")
            if let detail = error.detail { lines.append("detail: \(detail)") }
            let actions = error.actions.map(\.rawValue).joined(separator: ", ")
            lines.append("actions: \(actions.isEmpty ? "none" : actions)")
        }
        if let destination = state.destination {
            lines.append("")
            lines.append(
                "destination: \(destination.screen.rawValue)  route: \(destination.route ?? "-")"
                    + "  sheet: \(destination.sheet ?? "-")  review prompt: \(destination.reviewPrompt ? "yes" : "no")"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line for `splashctl watch`, without a newline.
    ///
    /// `loading  42%  slow  Signing in  [auth-refresh running #1, config-fetch succeeded]`:
    /// phase, progress, `slow` when set, the message, then the steps that are not pending (with
    /// the attempt when running, failed or retried). Phase `error` adds its actions; `finished`
    /// adds the destination.
    public static func watchLine(_ state: StateMessage) -> String {
        var parts = [state.phase.rawValue, percent(state.progress)]
        if state.slow { parts.append("slow") }
        if let message = state.message, !message.isEmpty { parts.append(message) }
        let steps = state.steps.filter { $0.status != .pending }.map { step in
            let showAttempt = step.status == .running || step.status == .failed || step.attempt > 1
            return "\(step.id) \(step.status.rawValue)" + (showAttempt ? " #\(step.attempt)" : "")
        }
        if !steps.isEmpty { parts.append("[\(steps.joined(separator: ", "))]") }
        if state.phase == .error, let error = state.error {
            let actions = error.actions.map(\.rawValue).joined(separator: ", ")
            parts.append("actions: \(actions.isEmpty ? "none" : actions)")
        }
        if state.phase == .finished, let destination = state.destination {
            var text = "-> \(destination.screen.rawValue)"
            if let route = destination.route { text += " \(route)" }
            if let sheet = destination.sheet { text += " sheet \(sheet)" }
            if destination.reviewPrompt { text += " review-prompt" }
            parts.append(text)
        }
        return parts.joined(separator: "  ")
    }

    /// Progress as a whole percentage, rounded down so that 100% means done: `"42%"`.
    public static func percent(_ progress: Double) -> String {
        let clamped = min(max(progress.isFinite ? progress : 0, 0), 1)
        return "\(Int((clamped * 100 + 1e-9).rounded(.down)))%"
    }

    /// A duration in milliseconds the way configs write durations: `"812ms"`, `"1.4s"`, `"2m"`.
    public static func duration(ms: Int64) -> String {
        DurationFormat.format(.milliseconds(ms))
    }

    /// Columns padded to their widest cell, two spaces apart; the last column is not padded.
    private static func aligned(_ rows: [[String]]) -> [String] {
        guard let columns = rows.first?.count else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                line += cell
                if index < columns - 1 { line += String(repeating: " ", count: widths[index] - cell.count + 2) }
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
