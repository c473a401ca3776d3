/// The kinds of key events a launch logs, each with a stable journal `MESSAGE_ID`.
///
/// Log records carry the kind as metadata `event` (its raw value); the journald backend turns it
/// into `MESSAGE_ID`, documented in `systemd/splashd.catalog`.
public enum LaunchLogEvent: String, Sendable, CaseIterable {
    case launchStarted = "launch-started"
    case stepFinished = "step-finished"
    case stepFailed = "step-failed"
    case phaseChanged = "phase-changed"
    case launchFinished = "launch-finished"
    /// The app's unit stopped without being asked to (design §14).
    case appExited = "app-exited"
    /// The app missed three heartbeats; its unit is killed.
    case appHung = "app-hung"
    /// The app stopped too often: the splash shows `app-crash-loop` until Retry.
    case appCrashLoop = "app-crash-loop"
    /// A `resume`: the session checked without the splash (or, when it is gone, with it).
    case resume
    /// An update began (mode `update`): psplash's FIFO, RAUC or `splashctl update`.
    case updateStarted = "update-started"
    /// The updater said the update ended (succeeded or failed), or psplash's `QUIT` came.
    case updateFinished = "update-finished"
    /// The device goes down: the shutdown view (mode `shutdown`).
    case shutdown

    /// The journal MESSAGE_ID (128 bits, lower-case hex, as `journalctl --new-id128` prints it).
    public var messageID: String {
        switch self {
        case .launchStarted: "76bc5e5dee6741ef924f31ac5e522255"
        case .stepFinished: "2fada2569d0c4ec18c2ed58c92bdb5ca"
        case .stepFailed: "02735621af554ba9a64591fdb7ce0bc1"
        case .phaseChanged: "e926d20f31694d59abb8d172b1b2931e"
        case .launchFinished: "f0d9320a7af2417aa3e2dba4301af87c"
        case .appExited: "8347258ac1cd457dbb6020f3fd5cd5ca"
        case .appHung: "678ed15ddeb044ee82aaf32c8eccc3a2"
        case .appCrashLoop: "de49cae7e4d34c2bbb79294fc7bce06d"
        case .resume: "7b0884b96f304ef7bdcd21b429f32bb4"
        case .updateStarted: "5a99ade643014655968923205da93119"
        case .updateFinished: "1ec69a2b4c504e6e91bcd02805b8e255"
        case .shutdown: "1c0f1541d6f445ada5f9d40ed91b32f2"
        }
    }

    /// The metadata key that carries the kind.
    public static let metadataKey = "event"
}
