import Logging
import SplashCore
public import SplashJSON
public import SplashPlugins

#if canImport(Glibc)
import Glibc
#endif

/// The built-in `app-start` step (design §14): starts the app's unit through systemd (a no-op when
/// it runs), or, in a launch that brings the app back (`LaunchReason.recoversApp`), restarts it,
/// killing what is left of a hung one first. It succeeds once systemd has queued the job; the
/// app's first frame (`first-frame`, a `signal` step) says it is really up.
public struct AppStartPlugin: StepPlugin {
    let unit: String
    let bus: any AppUnitBus
    /// Told the job of each start queued, before the step's result: the watch follows that job
    /// (`AppWatch.startQueued`).
    let queued: AppStartRelay?

    public init(unit: String, bus: any AppUnitBus, queued: AppStartRelay? = nil) {
        self.unit = unit
        self.bus = bus
        self.queued = queued
    }

    public func run(_ context: StepContext) async throws -> Facts {
        let reason = context.run.reason
        if !reason.recoversApp {
            try await call("start") { () async throws(AppUnitError) in try await bus.start(unit, restart: false) }
        } else {
            if reason == .appHung {
                // What is left of a hung app; an app already gone is no failure.
                do {
                    try await bus.kill(unit)
                } catch {
                    context.logger.notice("killing the app's unit: \(error.message)", metadata: ["unit": "\(unit)"])
                }
            }
            try await call("restart") { () async throws(AppUnitError) in try await bus.start(unit, restart: true) }
        }
        context.logger.info("the app's unit \(unit) is starting", metadata: ["unit": "\(unit)"])
        return [:]
    }

    private func call(_ what: String, _ body: () async throws(AppUnitError) -> UInt32) async throws(StepFailure) {
        do {
            let job = try await body()
            queued?.started(job: job)
        } catch {
            // Permission (polkit) and a missing unit are not fixed by trying again at once; a bus
            // that is restarting is.
            let lasting = error.code == -EACCES || error.code == -EPERM || error.code == -ENOENT
            throw StepFailure(code: .stepFailed, message: "cannot \(what) \(unit): \(error.message)", retryable: !lasting)
        }
    }
}
