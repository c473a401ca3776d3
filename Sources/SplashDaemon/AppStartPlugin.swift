import Logging
public import SplashCore
public import SplashPlugins
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the next `app-start` attempt does: set by the controller as each launch begins.
public final class AppStartOrders: Sendable {
    /// How the launch brings the app up.
    public enum Order: Sendable, Equatable {
        /// Queue a start: a no-op when the app runs (boot, relaunch, reload, resume).
        case start
        /// Restart the unit, after killing what is left of it when `kill` (an exit or a hang).
        case restart(kill: Bool)
    }

    private let order = Mutex(Order.start)

    public init() {}

    /// Sets what attempts of the launch beginning now do.
    public func set(_ new: Order) { order.withLock { $0 = new } }

    public var current: Order { order.withLock { $0 } }
}

/// The built-in `app-start` step (SPEC §14): starts the app's unit through systemd, or restarts
/// it after the app exited or hung. It succeeds once systemd has queued the job; the app's first
/// frame (`first-frame`, a `signal` step) says it is really up.
public struct AppStartPlugin: StepPlugin {
    let unit: String
    let bus: any AppUnitBus
    let orders: AppStartOrders

    public init(unit: String, bus: any AppUnitBus, orders: AppStartOrders) {
        self.unit = unit
        self.bus = bus
        self.orders = orders
    }

    public func run(_ context: StepContext) async throws -> Facts {
        switch orders.current {
        case .start:
            try await call("start") { () async throws(AppUnitError) in try await bus.start(unit, restart: false) }
        case .restart(let kill):
            if kill {
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

    private func call(_ what: String, _ body: () async throws(AppUnitError) -> Void) async throws(StepFailure) {
        do {
            try await body()
        } catch {
            // Permission (polkit) and a missing unit are not fixed by trying again at once; a bus
            // that is restarting is.
            let lasting = error.code == -EACCES || error.code == -EPERM || error.code == -ENOENT
            throw StepFailure(code: .stepFailed, message: "cannot \(what) \(unit): \(error.message)", retryable: !lasting)
        }
    }
}
