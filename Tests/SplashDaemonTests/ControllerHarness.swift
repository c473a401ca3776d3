import Logging
import SplashBuiltins
import SplashCore
import SplashJSON
import SplashDaemon
import SplashPlugins
import SplashProtocol
import Testing
import TestSupport

/// An in-process plugin whose attempts the test scripts.
struct ScriptedPlugin: StepPlugin {
    let body: @Sendable (StepContext) async throws -> Facts
    func run(_ context: StepContext) async throws -> Facts { try await body(context) }
}

/// A `LaunchController` on a `TestClock`, with an observer of every published state.
struct ControllerHarness {
    let clock = TestClock()
    let broadcaster = StateBroadcaster()
    let board: SignalBoard
    let controller: LaunchController<TestClock>
    let task: Task<Void, Never>
    private let states: AsyncStream<StateMessage>

    init(
        _ steps: [StepSpec], settings: SplashSettings, plugins: [String: any StepPlugin] = [:],
        publishInterval: Duration = .zero, board: SignalBoard = SignalBoard(), completing: (any SignalCompleting)? = nil,
        app: AppLink? = nil, builtins: BuiltinServices? = nil, logger: Logger? = nil
    ) throws {
        self.board = board
        var all = plugins
        all["signal"] = SignalPlugin(board: board)
        if let app {
            all[BuiltinPlugin.appStart.name] = AppStartPlugin(unit: app.settings.unit, bus: app.bus, queued: app.queued)
        }
        let logger = logger ?? {
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            return logger
        }()
        let graph = try StepGraph(steps: steps)
        let launches = LaunchCounter()
        controller = LaunchController(
            graph: graph, settings: settings,
            plugins: PluginRegistry(plugins: all, signalBoard: completing ?? board),
            clock: clock, broadcaster: broadcaster, builtins: builtins, app: app, publishInterval: publishInterval, logger: logger,
            makeLaunchID: { launches.next() }
        )
        states = broadcaster.observe()
        let controller = self.controller
        task = Task { await controller.run() }
    }

    /// The next published state that satisfies `predicate` (bounded by the test's time limit).
    func next(where predicate: (StateMessage) -> Bool) async -> StateMessage? {
        for await state in states where predicate(state) { return state }
        return nil
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

final class LaunchCounter: @unchecked Sendable {
    private var count = 0
    func next() -> String {
        count += 1
        return "launch-\(count)"
    }
}
