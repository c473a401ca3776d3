import Logging
import SplashCore
public import SplashJSON
public import SplashPlugins

/// The `quick-action` built-in: the pending quick action or deep link for this launch.
///
/// Options: `QuickActionOptions`, read from the step's parsed options: `scheme`, `routes`,
/// `actions` (the router's) and `spool`, a directory (default `spool` in the state directory).
///
/// At each run the plugin takes every spool file (each holds one action name or URL, trimmed; it
/// is read, then removed — see `QuickActionSpool`), then drains the inbox: commands received while
/// loading count as newer than any spool file. Spool files are ordered by modification time. The
/// newest input that resolves wins; older resolvable ones are logged as superseded; every unknown
/// one is logged as a warning and dropped. None of that fails the launch, nor does a missing
/// spool directory.
///
/// Inputs taken by an attempt that is then abandoned are not lost: a later attempt of the same
/// launch sees them again. A spool file that cannot be removed is logged and not taken again.
///
/// Facts: `action` (the winner's name, or its URL without query and fragment), `route`, `sheet`;
/// each `null` when there is none.
public struct QuickActionPlugin: StepPlugin {
    /// The device's state directory (default spool, memory of unremovable spool files).
    public let device: DeviceState
    /// Where the daemon posts `action` / `open` commands received while loading.
    public let inbox: QuickActionInbox
    private let ledger: QuickActionLedger

    /// Creates the plugin reading the spool under `device`'s state directory and commands from `inbox`.
    public init(device: DeviceState, inbox: QuickActionInbox) {
        self.device = device
        self.inbox = inbox
        self.ledger = QuickActionLedger(path: device.resolve("quick-action-spool.json"))
    }

    /// Takes the pending inputs and returns the winner's action, route and sheet.
    public func run(_ context: StepContext) async throws -> Facts {
        let options = try context.run.step.builtinOptions(QuickActionOptions.self)
        let logger = context.logger
        let router = QuickActionRouter(options: options)
        let spool = QuickActionSpool(directory: device.resolve(options.spool))
        let taken = spool.take(ignoring: ledger.ignored(logger: logger), logger: logger)
        ledger.ignore(taken.unremovable, logger: logger)
        let commands = inbox.drain()
        let all = ledger.take(launch: context.run.launch, spool: taken.entries, commands: commands)

        let candidates = all.spool.compactMap(\.input) + all.commands
        var winner: QuickActionRouter.Resolution?
        for input in candidates.reversed() {
            guard let resolution = router.resolve(input) else {
                logger.warning("unknown quick action or deep link dropped: \(input.loggable)", metadata: ["input": "\(input.loggable)"])
                continue
            }
            if let winner {
                logger.info("quick action or deep link superseded by a newer one: \(input.loggable)", metadata: ["winner": "\(LogExcerpt.of(winner.action))"])
            } else {
                winner = resolution
            }
        }
        if let winner {
            logger.info(
                "quick action or deep link for this launch: \(LogExcerpt.of(winner.action))",
                metadata: ["route": "\(LogExcerpt.of(winner.route ?? "-"))", "sheet": "\(LogExcerpt.of(winner.sheet ?? "-"))"]
            )
        }
        return [
            "action": winner.map { .string($0.action) } ?? .null,
            "route": winner?.route.map(JSONValue.string) ?? .null,
            "sheet": winner?.sheet.map(JSONValue.string) ?? .null,
        ]
    }
}
