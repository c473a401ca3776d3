public import Logging
public import SplashCore
import SplashJSON
import SplashProtocol

/// Turns the mode machine's events into log records: each key event with its `MESSAGE_ID`
/// (`LaunchLogEvent`); the log handlers escape what an updater wrote (`LogEscaping`).
public enum ModeLog {
    /// Logs `event`, during launch `launch`.
    public static func log(_ event: ModeMachine.Event, launch: String, to logger: Logger) {
        var metadata: Logger.Metadata = ["launch": "\(launch)"]
        switch event {
        case .updateStarted(let source):
            metadata["event"] = "\(LaunchLogEvent.updateStarted.rawValue)"
            metadata["source"] = "\(source.rawValue)"
            logger.notice("an update began (\(describe(source))): the update view is shown", metadata: metadata)
        case .updateFinished(let source, let result, let error, let duration):
            metadata["event"] = "\(LaunchLogEvent.updateFinished.rawValue)"
            metadata["source"] = "\(source.rawValue)"
            metadata["result"] = "\(result.rawValue)"
            metadata["duration_ms"] = "\(duration.milliseconds)"
            if result == .failed {
                let why = error.map { ": " + $0 } ?? ""
                logger.error("the update failed after \(DurationFormat.format(duration)) (\(describe(source)))\(why)", metadata: metadata)
            } else {
                logger.notice("the update succeeded after \(DurationFormat.format(duration)) (\(describe(source)))", metadata: metadata)
            }
        case .updateQuit(let source, let duration):
            metadata["event"] = "\(LaunchLogEvent.updateFinished.rawValue)"
            metadata["source"] = "\(source.rawValue)"
            metadata["duration_ms"] = "\(duration.milliseconds)"
            logger.notice("the update's writer said QUIT after \(DurationFormat.format(duration)) (\(describe(source)))", metadata: metadata)
        case .shutdownStarted(let kind):
            metadata["event"] = "\(LaunchLogEvent.shutdown.rawValue)"
            metadata["kind"] = "\(kind.rawValue)"
            logger.notice("the device is \(kind == .reboot ? "restarting" : "shutting down"): the shutdown view is shown", metadata: metadata)
        case .modeChanged(let from, let to):
            metadata["mode"] = "\(to.rawValue)"
            logger.info("mode \(from.rawValue) -> \(to.rawValue)", metadata: metadata)
        }
    }

    static func describe(_ source: UpdateStatus.Source) -> String {
        switch source {
        case .psplash: "psplash's FIFO"
        case .rauc: "RAUC"
        case .splashctl: "splashctl update"
        }
    }
}
