import Foundation
import Logging
import SplashCore
import SplashJSON
import SplashPlugins
import Synchronization
import TestSupport

/// A step context for a built-in, logging into `log`.
func quickActionTestContext(
    step: String,
    plugin: String,
    options: [String: JSONValue] = [:],
    dependencyFacts: [String: Facts] = [:],
    launch: String = "launch-1",
    attempt: Int = 1,
    log: LogCapture
) -> StepContext {
    let spec = StepSpec(id: step, plugin: plugin, options: options)
    let run = StepRun(step: spec, launch: launch, attempt: attempt, token: 1, dependencyFacts: dependencyFacts)
    return StepContext(run: run, logger: log.logger(), report: { _ in })
}

/// The names in `directory`, sorted; empty when it does not exist.
func quickActionDirectoryNames(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// Sets the modification time of `path` to `seconds` after the epoch.
func quickActionSetModified(_ path: String, seconds: Double) throws {
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: path)
}
