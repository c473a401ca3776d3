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
        switch event {
        case .launchStarted(_, let reason):
            metadata["event"] = "\(LaunchLogEvent.launchStarted.rawValue)"
            metadata["reason"] = "\(reason.rawValue)"
            logger.info("launch started (\(reason.rawValue))", metadata: metadata)
        case .stepStarted(let step, let attempt):
            metadata["step"] = "\(step)"
            metadata["attempt"] = "\(attempt)"
            logger.debug("step \(step) started (attempt \(attempt))", metadata: metadata)
        case .stepSucceeded(let step, let attempt, let duration):
            metadata["step"] = "\(step)"
            metadata["attempt"] = "\(attempt)"
            metadata["duration_ms"] = "\(duration.milliseconds)"
            metadata["event"] = "\(LaunchLogEvent.stepFinished.rawValue)"
            logger.info("step \(step) succeeded in \(DurationFormat.format(duration))", metadata: metadata)
        case .stepFailed(let step, let attempt, let failure, let duration, let retryIn):
            metadata["step"] = "\(step)"
            metadata["attempt"] = "\(attempt)"
            metadata["duration_ms"] = "\(duration.milliseconds)"
            metadata["event"] = "\(LaunchLogEvent.stepFailed.rawValue)"
            metadata["code"] = "\(failure.code)"
            if let retryIn {
                logger.warning(
                    "step \(step) attempt \(attempt) failed: \(failure.message); retrying in \(DurationFormat.format(retryIn))",
                    metadata: metadata
                )
            } else {
                logger.error("step \(step) failed: \(failure.message)", metadata: metadata)
            }
        case .stepSkipped(let step, let reason):
            metadata["step"] = "\(step)"
            logger.notice("step \(step) skipped: \(reason)", metadata: metadata)
        case .stepCancelled(let step, let attempt):
            metadata["step"] = "\(step)"
            metadata["attempt"] = "\(attempt)"
            logger.notice("step \(step) attempt \(attempt) cancelled", metadata: metadata)
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
