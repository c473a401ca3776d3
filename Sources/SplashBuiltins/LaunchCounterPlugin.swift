import SplashCore
public import SplashJSON
public import SplashPlugins
import Logging

/// The `launch-counter` built-in: the review-prompt counter.
///
/// Keeps a crash-safe count of the launches that meet `count_when` (see `LaunchCounterOptions`)
/// in a small JSON file in the state directory. At a counted launch where the count has reached
/// `min_launches` and this `version` was never prompted, the facts carry `review_prompt: true`
/// and the version is recorded as prompted, in the same atomic write as the count.
///
/// - "signed-in" means some dependency reported `authenticated: true` (in the default graph the
///   step runs after `auth-refresh`). A launch that is not counted never prompts.
/// - Counting is idempotent per launch: the file remembers the launch id counted last, so a
///   retried attempt of the same launch neither counts twice nor loses its prompt.
/// - A corrupt or unreadable file is logged, kept as `FILE.corrupt`, and counting starts afresh.
///   A file that cannot be written is logged and the launch goes on without a prompt (a prompt
///   that cannot be recorded would repeat at every launch). Neither fails the step.
/// - Bad options fail the step for good (`bad-options`).
///
/// Facts: `count` (the launches counted so far, including this one), `review_prompt`.
public struct LaunchCounterPlugin: StepPlugin {
    /// The device's state directory, where the counter file lives.
    public let device: DeviceState

    /// Creates the plugin keeping its file in `device`'s state directory.
    public init(device: DeviceState) {
        self.device = device
    }

    /// Counts this launch if it qualifies and says whether to prompt for a review.
    public func run(_ context: StepContext) async throws -> Facts {
        let options = try context.run.step.builtinOptions(LaunchCounterOptions.self)
        let store = LaunchCounterStore(path: device.resolve(options.file))
        let logger = context.logger
        let launch = context.run.launch
        var record = store.load(logger: logger)

        if record.lastCountedLaunch == launch {
            logger.debug("launch already counted by an earlier attempt", metadata: ["count": "\(record.count)"])
            return Self.facts(count: record.count, reviewPrompt: record.promptedLaunch == launch)
        }
        guard qualifies(context.run.dependencyFacts, options: options, logger: logger) else {
            return Self.facts(count: record.count, reviewPrompt: false)
        }

        record.count += 1
        record.lastCountedLaunch = launch
        var prompt = false
        if record.count >= options.minLaunches && !record.promptedVersions.contains(options.version) {
            record.markPrompted(version: options.version, launch: launch)
            prompt = true
        }
        do {
            try store.save(record)
        } catch {
            logger.error("cannot store the launch count, no review prompt this launch: \(error)")
            return Self.facts(count: record.count, reviewPrompt: false)
        }
        logger.debug(
            "launch counted",
            metadata: ["count": "\(record.count)", "review_prompt": "\(prompt)", "version": "\(options.version)"]
        )
        return Self.facts(count: record.count, reviewPrompt: prompt)
    }

    private func qualifies(_ dependencyFacts: [String: Facts], options: LaunchCounterOptions, logger: Logger) -> Bool {
        switch options.countWhen {
        case .always:
            return true
        case .signedIn:
            if dependencyFacts.values.contains(where: { $0["authenticated"]?.boolValue == true }) { return true }
            if !dependencyFacts.values.contains(where: { $0["authenticated"] != nil }) {
                logger.warning(
                    "count_when is \"signed-in\" but no dependency reports 'authenticated'; this launch is not counted (add auth-refresh to 'after', or use count_when = \"always\")"
                )
            } else {
                logger.debug("not signed in; launch not counted")
            }
            return false
        }
    }

    private static func facts(count: Int, reviewPrompt: Bool) -> Facts {
        ["count": .number(Double(count)), "review_prompt": .bool(reviewPrompt)]
    }
}
