import Logging
import SplashCore
import SplashJSON
import SplashPlugins
import TestSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A temporary directory for one test: plugin scripts, pid files, device paths.
final class PluginFixture: Sendable {
    /// The directory; removed when the fixture goes away.
    let directory: String
    /// Captures what plugins log.
    let log = LogCapture()
    /// Captures what plugins report.
    let reports = ReportRecorder()

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        directory = "\(base)/splashd-plugins-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A path inside the directory.
    func path(_ name: String) -> String {
        "\(directory)/\(name)"
    }

    /// Writes an executable script `name` with `body` and returns its path.
    @discardableResult
    func script(_ name: String, _ body: String, executable: Bool = true) throws -> String {
        let path = path(name)
        return try writeClosingOnExec(path, body, mode: executable ? 0o755 : 0o644)
    }

    /// An `ExternalPlugin` for the executable at `path`, with a short grace period on `clock`,
    /// inheriting this process's environment unless told otherwise.
    func plugin(
        _ path: String,
        name: String = "test",
        grace: Duration = .milliseconds(200),
        environment: PluginEnvironment.Inherited = .ofThisProcess,
        clock: any Clock<Duration> = ContinuousClock(),
        busyExecutableWait: Duration = ExternalPlugin.defaultBusyExecutableWait
    ) -> ExternalPlugin {
        ExternalPlugin(
            manifest: PluginManifest(name: name, executable: path, manifestPath: "\(directory)/\(name).toml"),
            grace: grace,
            environment: environment,
            clock: clock,
            busyExecutableWait: busyExecutableWait
        )
    }

    /// A context for step `step` that reports and logs into this fixture.
    func context(
        step: String = "probe",
        options: [String: JSONValue] = [:],
        dependencyFacts: [String: Facts] = [:],
        launch: String = "launch-1",
        attempt: Int = 1
    ) -> StepContext {
        let spec = StepSpec(id: step, plugin: "test", options: options)
        let run = StepRun(step: spec, launch: launch, attempt: attempt, token: 1, dependencyFacts: dependencyFacts)
        return StepContext(run: run, logger: log.logger(), report: reports.report)
    }

    /// Reads a file written by a plugin, if it is there.
    func read(_ name: String) -> String? {
        try? String(contentsOfFile: path(name), encoding: .utf8)
    }
}

extension PluginEnvironment.Inherited {
    /// The test process's environment, as the daemon passes its own.
    static let ofThisProcess = PluginEnvironment.Inherited(ProcessInfo.processInfo.environment)
}
