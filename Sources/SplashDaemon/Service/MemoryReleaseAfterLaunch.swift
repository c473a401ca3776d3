import Logging
import SplashCore
import SplashProtocol
import SplashSupport

/// A second after each launch's `finished`, gives the pages the launch touched back to the system
/// (`MemoryRelease`), once per launch.
///
/// The second lets the launch's aftermath settle first — the renderer's disconnect, the history
/// write, the app's first requests — so their pages are not read straight back in; a new launch
/// within it (any state that is not `finished`) cancels the release. The delay passes on `clock`.
struct MemoryReleaseAfterLaunch<C: Clock>: Sendable where C.Duration == Duration {
    /// How long after `finished` the release comes.
    static var delay: Duration { .seconds(1) }

    /// Which launch a state arms the release for: the decisions, without the clock.
    struct Schedule {
        enum Action: Equatable {
            /// Release `delay` from now (replacing any release still waiting).
            case arm
            /// Cancel the release still waiting, if any.
            case disarm
            /// Nothing changes.
            case keep
        }

        /// The launch whose release was last armed.
        private var armedLaunch: String?

        mutating func observe(phase: Phase, launch: String) -> Action {
            guard phase == .finished else { return .disarm }
            guard launch != armedLaunch else { return .keep }
            armedLaunch = launch
            return .arm
        }
    }

    let clock: C
    let release: @Sendable () -> Void

    /// Releases with `release` `delay` after each launch's `finished` on `clock`.
    init(clock: C, release: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.release = release
    }

    /// Follows `states` until they end or the task is cancelled; a release still waiting then is
    /// dropped.
    func run(following states: AsyncStream<StateMessage>) async {
        var schedule = Schedule()
        var pending: Task<Void, Never>?
        defer { pending?.cancel() }
        for await state in states {
            switch schedule.observe(phase: state.phase, launch: state.launch) {
            case .keep:
                continue
            case .disarm:
                pending?.cancel()
                pending = nil
            case .arm:
                pending?.cancel()
                pending = Task { [clock, release] in
                    do { try await clock.sleep(for: Self.delay, tolerance: nil) } catch { return }
                    release()
                }
            }
        }
    }
}

extension MemoryReleaseAfterLaunch where C == ContinuousClock {
    /// The daemon's: `MemoryRelease.releaseIdleMemory()`, logged at debug with what it did.
    init(logger: Logger) {
        self.init(clock: ContinuousClock()) {
            let outcome = MemoryRelease.releaseIdleMemory()
            let before = outcome.residentBefore.map { "\($0) kB" } ?? "?"
            let after = outcome.residentAfter.map { "\($0) kB" } ?? "?"
            logger.debug(
                "released memory after the launch: resident \(before) -> \(after)",
                metadata: ["regions": "\(outcome.regions)", "refused": "\(outcome.refused)"]
            )
        }
    }
}
