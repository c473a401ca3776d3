public import Logging
public import SplashCore

/// Turns launch events into log records with structured metadata.
///
/// Metadata keys are stable (`launch`, `step`, `attempt`, `phase`, `duration_ms`, `event`), so a
/// log backend can map them to fields (the journald backend maps them to `SPLASHD_*`, and `event`
/// to the `MESSAGE_ID` of its `LaunchLogEvent`).
public enum LaunchLog {
    /// Logs `event` of launch `launch`.
    public static func log(_ event: LaunchEvent, launch: String, to logger: Logger) {
        var metadata: Logger.Metadata = ["launch": "\(launch)"]
        /// A step's fields: its id, and the attempt, duration and event when the record has them.
        func step(_ id: String, attempt: Int? = nil, duration: Duration? = nil, event: LaunchLogEvent? = nil) {
            metadata["step"] = "\(id)"
            if let attempt { metadata["attempt"] = "\(attempt)" }
            if let duration { metadata["duration_ms"] = "\(duration.milliseconds)" }
            if let event { metadata["event"] = "\(event.rawValue)" }
        }
        switch event {
        case .launchStarted(_, let reason):
            metadata["event"] = "\(LaunchLogEvent.launchStarted.rawValue)"
            metadata["reason"] = "\(reason.rawValue)"
            logger.info("launch started (\(reason.rawValue))", metadata: metadata)
        case .stepStarted(let id, let attempt):
            step(id, attempt: attempt)
            logger.debug("step \(id) started (attempt \(attempt))", metadata: metadata)
        case .stepSucceeded(let id, let attempt, let duration):
            step(id, attempt: attempt, duration: duration, event: .stepFinished)
            logger.info("step \(id) succeeded in \(DurationFormat.format(duration))", metadata: metadata)
        case .stepFailed(let id, let attempt, let failure, let duration, let retryIn):
            step(id, attempt: attempt, duration: duration, event: .stepFailed)
            metadata["code"] = "\(failure.code)"
            if let retryIn {
                logger.warning(
                    "step \(id) attempt \(attempt) failed: \(failure.message); retrying in \(DurationFormat.format(retryIn))",
                    metadata: metadata
                )
            } else {
                logger.error("step \(id) failed: \(failure.message)", metadata: metadata)
            }
        case .stepSkipped(let id, let reason):
            step(id)
            logger.notice("step \(id) skipped: \(reason)", metadata: metadata)
        case .stepCancelled(let id, let attempt):
            step(id, attempt: attempt)
            logger.notice("step \(id) attempt \(attempt) cancelled", metadata: metadata)
        case .phaseChanged(let from, let to):
            metadata["phase"] = "\(to.rawValue)"
            metadata["event"] = "\(LaunchLogEvent.phaseChanged.rawValue)"
            logger.info("phase \(from.rawValue) -> \(to.rawValue)", metadata: metadata)
        case .launchFinished(_, let destination, let elapsed):
            metadata["phase"] = "finished"
            metadata["duration_ms"] = "\(elapsed.milliseconds)"
            metadata["event"] = "\(LaunchLogEvent.launchFinished.rawValue)"
            metadata["screen"] = "\(destination.screen.rawValue)"
            var text = "launch finished in \(DurationFormat.format(elapsed)): \(destination.screen.rawValue)"
            if let route = destination.route { text += " route \(route)" }
            if let sheet = destination.sheet { text += " sheet \(sheet)" }
            logger.info("\(text)", metadata: metadata)
        }
    }
}
