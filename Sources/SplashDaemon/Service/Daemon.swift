#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Logging
import NIOPosix
import ServiceLifecycle
public import SplashBuiltins
public import SplashConfig
import SplashCore
public import SplashPlugins
import SplashJournalWriter
import SplashProtocol
import UnixSignals

extension SignalBoard: SignalCompleting {}

/// `RLIMIT_NOFILE` as the type `getrlimit` takes (an enum in Glibc's Swift import).
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

/// How `splashd` was asked to run.
public struct DaemonOptions: Sendable {
    /// An explicit config file; nil means the default path, or the embedded default when absent.
    public var configPath: String?
    /// An explicit socket path (over the config's and `$SPLASHD_SOCKET`).
    public var socketPath: String?
    public var stateDirectory: String
    /// Extra plugin directories, after the standard ones.
    public var pluginDirectories: [String]
    /// How long a plugin gets between SIGTERM and SIGKILL.
    public var pluginGrace: Duration
    public var environment: [String: String]

    public init(
        configPath: String? = nil,
        socketPath: String? = nil,
        stateDirectory: String = "/var/lib/splashd",
        pluginDirectories: [String] = [],
        pluginGrace: Duration = .seconds(2),
        environment: [String: String] = [:]
    ) {
        self.configPath = configPath
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
        self.pluginDirectories = pluginDirectories
        self.pluginGrace = pluginGrace
        self.environment = environment
    }
}

/// Why the daemon could not start (it never stops for any other reason than a signal).
public struct DaemonStartError: Error, CustomStringConvertible {
    public var description: String
    /// The process exit code: 78 (EX_CONFIG) for configuration problems, 69 otherwise.
    public var exitCode: Int32
}

/// Assembles and runs the daemon.
public enum Daemon {
    /// Loads the plugin catalog and the configuration, the way both `splashd` and `splashd check` do.
    public static func loadConfiguration(options: DaemonOptions, logger: Logger) throws(ConfigError) -> (DaemonConfig, PluginCatalog) {
        let catalog = PluginCatalog.scan(directories: PluginCatalog.standardDirectories + options.pluginDirectories)
        for problem in catalog.problems { logger.error("plugin manifest rejected: \(problem)") }
        let config: DaemonConfig
        if let path = options.configPath {
            config = try ConfigLoader.load(path: path, catalog: catalog)
        } else {
            config = try ConfigLoader.loadOrDefault(catalog: catalog)
        }
        return (config, catalog)
    }

    /// The plugins of this build plus the external ones in `catalog` (built-ins win a name clash),
    /// which inherit `environment` and whose escaped processes `containment` stops.
    public static func makeRegistry(
        catalog: PluginCatalog, grace: Duration, environment: [String: String], builtins: BuiltinServices?,
        containment: PluginContainment, app: AppLink? = nil, logger: Logger
    ) -> PluginRegistry {
        let board = SignalBoard()
        var plugins: [String: any StepPlugin] = builtins?.plugins() ?? [:]
        let inherited = PluginEnvironment.Inherited(environment)
        plugins[BuiltinPlugin.signal.name] = SignalPlugin(board: board)
        if let app {
            plugins[BuiltinPlugin.appStart.name] = AppStartPlugin(unit: app.settings.unit, bus: app.bus, queued: app.queued)
        }
        for (name, manifest) in catalog.manifests.sorted(by: { $0.key < $1.key }) {
            guard plugins[name] == nil else {
                logger.warning("plugin manifest \(manifest.manifestPath) is shadowed by the built-in plugin \(name)")
                continue
            }
            plugins[name] = ExternalPlugin(manifest: manifest, grace: grace, environment: inherited, containment: containment)
        }
        return PluginRegistry(plugins: plugins, signalBoard: board)
    }

    /// Runs until SIGTERM or SIGINT, then stops every plugin and returns.
    public static func run(options: DaemonOptions, logger: Logger) async throws {
        // Trapped first: a SIGTERM or SIGINT arriving before the service group traps them itself
        // (while the config is read and the socket bound) is kept and stops the daemon gracefully
        // once the group runs, instead of killing it with its socket file left behind.
        let earlyStop = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let descriptorLimit = raiseDescriptorLimit(logger: logger)
        let config: DaemonConfig
        let catalog: PluginCatalog
        do {
            (config, catalog) = try loadConfiguration(options: options, logger: logger)
        } catch {
            throw DaemonStartError(description: error.description, exitCode: 78)
        }
        try SocketServer.makeDirectories(options.stateDirectory, mode: 0o700)
        let endpoint = try socketEndpoint(options: options, config: config)
        let parts = Parts(config: config, catalog: catalog, options: options, logger: logger)
        logger.info(
            "splashd \(splashdVersion) starting: \(config.graph.steps.count) steps from \(config.source)",
            metadata: ["socket": "\(endpoint)"]
        )
        let controller = await makeController(config: config, parts: parts, options: options, logger: logger)
        // The socket is served before the service group starts: a client connecting now gets its
        // hello at once, and its requests wait in the controller's queue until the launch runs.
        let server: SocketServer
        do {
            server = try await serve(
                endpoint: endpoint, config: config, descriptorLimit: descriptorLimit, controller: controller,
                parts: parts, logger: logger
            )
        } catch {
            try? await parts.group.shutdownGracefully()
            throw DaemonStartError(description: "\(error)", exitCode: 69)
        }
        defer { logger.info("splashd stopped") }
        let failure = await runServices(
            controller: controller, config: config, parts: parts, options: options, earlyStop: earlyStop, logger: logger
        )
        await server.close()
        await parts.stop(grace: options.pluginGrace, logger: logger)
        if let failure { throw failure }
    }

    /// What the daemon runs on besides the controller: the plugins' containment, the event loop,
    /// the built-ins' services, the plugin registry and the states' broadcaster.
    struct Parts {
        let containment: PluginContainment
        let group: MultiThreadedEventLoopGroup
        let builtins: BuiltinServices
        let registry: PluginRegistry
        let broadcaster = StateBroadcaster()
        /// `[app]` as configured at start, with systemd's bus (design §14).
        let app: AppLink?

        init(config: DaemonConfig, catalog: PluginCatalog, options: DaemonOptions, logger: Logger) {
            // Before the first plugin starts: its orphans come to the daemon, not to init.
            if let refused = ChildSubreaper.enable() {
                logger.warning("cannot become a child subreaper (\(refused)): a plugin's process that leaves its process group may outlive its step")
            }
            containment = PluginContainment(ownsAllChildren: true)
            group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            builtins = BuiltinServices(stateDirectory: options.stateDirectory, eventLoopGroup: group)
            // Before anything is written: what a crash left between writing a file aside and renaming it.
            builtins.removeStaleTemporaries(graph: config.graph, logger: logger)
            app = config.app.map {
                AppLink(settings: $0, bus: SystemdAppBus(), ledger: AppRecoveryLedger(stateDirectory: options.stateDirectory))
            }
            registry = Daemon.makeRegistry(
                catalog: catalog, grace: options.pluginGrace, environment: options.environment, builtins: builtins,
                containment: containment, app: app, logger: logger
            )
            for spec in config.graph.steps where !registry.contains(spec.plugin) {
                logger.error("step \(spec.id) uses plugin \(spec.plugin), which is not available in this build; it will fail")
            }
        }

        /// After the service group: every attempt has ended (the controller waited for their
        /// teardown); anything a plugin left that no step claimed goes now, then the built-ins'
        /// clients and the event loop.
        func stop(grace: Duration, logger: Logger) async {
            let leftovers = await containment.stopOrphans(grace: grace)
            if leftovers != .nothingLeft {
                logger.notice("stopped plugin processes left at shutdown: \(leftovers)")
            }
            await builtins.shutdown()
            try? await group.shutdownGracefully()
        }
    }

    /// The launch controller on the wall clock, with the history saved in the state directory.
    static func makeController(
        config: DaemonConfig, parts: Parts, options: DaemonOptions, logger: Logger
    ) async -> LaunchController<ContinuousClock> {
        let historyStore = HistoryStore(stateDirectory: options.stateDirectory, logger: logger)
        return LaunchController(
            graph: config.graph,
            settings: config.settings,
            plugins: parts.registry,
            clock: ContinuousClock(),
            broadcaster: parts.broadcaster,
            builtins: parts.builtins,
            history: LaunchHistory(log: await historyStore.load(), store: historyStore) {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
            },
            app: parts.app,
            publishInterval: LaunchController<ContinuousClock>.defaultPublishInterval,
            updateEndView: config.update.endView,
            logger: logger,
            makeLaunchID: { UUID().uuidString.lowercased() }
        )
    }

    /// Binds (or takes over) the socket and serves it, within the descriptors the daemon has.
    static func serve(
        endpoint: SocketServer.Endpoint, config: DaemonConfig, descriptorLimit: Int, controller: LaunchController<ContinuousClock>,
        parts: Parts, logger: Logger
    ) async throws -> SocketServer {
        let maxClients = ConnectionLimit.capacity(
            maxClients: config.socket.maxClients, descriptorLimit: descriptorLimit, steps: config.graph.steps.count
        )
        logger.debug(
            "serving at most \(maxClients) clients (max_clients \(config.socket.maxClients), descriptor limit \(descriptorLimit), \(ConnectionLimit.reserve(steps: config.graph.steps.count)) kept for the daemon and its plugins)"
        )
        return try await SocketServer.start(
            endpoint: endpoint, group: parts.group, commands: controller, broadcaster: parts.broadcaster,
            access: AccessPolicy(controlGID: config.socket.controlGroup.flatMap(AccessPolicy.groupID(named:))),
            maxClients: maxClients,
            logger: logger
        )
    }

    /// Runs the daemon's service group until SIGTERM or SIGINT (or one caught before it ran);
    /// the error it ended with, if any.
    static func runServices(
        controller: LaunchController<ContinuousClock>, config: DaemonConfig, parts: Parts, options: DaemonOptions,
        earlyStop: UnixSignalsSequence, logger: Logger
    ) async -> (any Error)? {
        let service = DaemonService(
            controller: controller,
            broadcaster: parts.broadcaster,
            options: options,
            group: parts.group,
            builtins: parts.builtins,
            containment: parts.containment,
            app: parts.app,
            logger: logger,
            releaseMemoryAfterLaunch: config.daemon.releaseMemoryAfterLaunch,
            update: config.update
        )
        var configuration = ServiceGroupConfiguration(services: [.init(service: service)], logger: logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        let serviceGroup = ServiceGroup(configuration: configuration)
        let earlyStopWatch = Task {
            for await _ in earlyStop {
                await serviceGroup.triggerGracefulShutdown()
                return
            }
        }
        defer { earlyStopWatch.cancel() }
        do {
            try await serviceGroup.run()
            return nil
        } catch {
            return error
        }
    }

    /// Every client connection is a descriptor: take the hard limit as the soft one (systemd's
    /// default soft limit, 1024, would cap subscribers at about a thousand). Returns the soft
    /// limit in force (`Int.max` when unlimited).
    static func raiseDescriptorLimit(logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return Int.max }
        if limit.rlim_cur < limit.rlim_max {
            let previous = limit.rlim_cur
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 {
                logger.debug("descriptor limit raised from \(previous) to \(raised.rlim_cur)")
                limit = raised
            } else {
                logger.debug("descriptor limit stays at \(previous): \(String(cString: strerror(errno)))")
            }
        } else {
            logger.debug("descriptor limit is \(limit.rlim_cur) (the hard limit)")
        }
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY (all ones) becomes Int.max
    }

    static func socketEndpoint(options: DaemonOptions, config: DaemonConfig) throws -> SocketServer.Endpoint {
        let env = options.environment
        if let pid = env["LISTEN_PID"], pid_t(pid) == getpid(), let count = env["LISTEN_FDS"], (Int(count) ?? 0) >= 1 {
            return .inherited(3)
        }
        let path = options.socketPath ?? config.socket.path ?? SocketDefaults.path(environment: env)
        var groupID: gid_t?
        if let name = config.socket.controlGroup {
            groupID = AccessPolicy.groupID(named: name)
            if groupID == nil {
                throw DaemonStartError(description: "control_group \"\(name)\" does not exist", exitCode: 78)
            }
        }
        return .path(path, mode: mode_t(config.socket.mode), group: groupID)
    }
}

/// The daemon as one service: serve the socket, run launches, talk to systemd, reload on SIGHUP,
/// stop cleanly on SIGTERM.
///
/// `CustomStringConvertible` because `ServiceGroupConfiguration.ServiceConfiguration` names each
/// service with `"\(service)"`: without a description that reflects over every stored property
/// (the options, their environment dictionary, the logger...), which cost about a quarter of the
/// daemon's start-up CPU time in dynamic casts and protocol-conformance scans.
struct DaemonService: Service, CustomStringConvertible {
    var description: String { "splashd" }

    let controller: LaunchController<ContinuousClock>
    let broadcaster: StateBroadcaster
    let options: DaemonOptions
    let group: MultiThreadedEventLoopGroup
    let builtins: BuiltinServices
    /// Shared by every registry, across reloads.
    let containment: PluginContainment
    /// `[app]` as configured at start: a reload keeps it (changing it takes a restart).
    let app: AppLink?
    let logger: Logger
    /// `[daemon] release_memory_after_launch`, as configured at start.
    let releaseMemoryAfterLaunch: Bool
    /// `[update]`, as configured at start (a reload keeps it).
    let update: UpdateSettings
    var notifier: SystemdNotifier { SystemdNotifier(environment: options.environment) }

    func run() async throws {
        logger.info("listening")
        notifier.notify("READY=1")
        let controller = self.controller
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await reportStatus() }
            tasks.addTask { await reloadOnHangup() }
            if update.psplashFIFO {
                let path = PsplashFIFO.path(environment: options.environment)
                let (group, logger) = (self.group, self.logger)
                tasks.addTask { await PsplashFIFO.serve(path: path, group: group, controller: controller, logger: logger) }
            }
            if update.rauc {
                let (controller, logger) = (self.controller, self.logger)
                tasks.addTask {
                    logger.info("following RAUC's installer on the system bus: its progress drives the update view")
                    let stop = RaucWatch.start(controller: controller, logger: logger)
                    // Until the daemon stops.
                    let (stopped, stopping) = AsyncStream<Void>.makeStream()
                    await withTaskCancellationHandler {
                        for await _ in stopped {}
                    } onCancel: {
                        stopping.finish()
                        stop()
                    }
                }
            }
            if releaseMemoryAfterLaunch {
                tasks.addTask { await MemoryReleaseAfterLaunch(logger: logger).run(following: broadcaster.observe()) }
            }
            if let interval = notifier.watchdogInterval {
                let loop = group.next()
                let notifier = self.notifier
                let watchdog = Watchdog(
                    interval: interval / 2, clock: ContinuousClock(),
                    probe: {
                        await controller.heartbeat()
                        try? await loop.submit {}.get()
                    },
                    ping: { notifier.notify("WATCHDOG=1") }
                )
                tasks.addTask { await watchdog.run() }
            }
            await cancelWhenGracefulShutdown { await controller.run() }
            notifier.notify("STOPPING=1")
            tasks.cancelAll()
        }
    }

    /// `STATUS=` follows the phase, the progress and the running steps.
    private func reportStatus() async {
        var last = ""
        for await state in broadcaster.observe() {
            let line = ServiceStatus.line(for: state)
            if line != last {
                notifier.notify("STATUS=\(line)")
                last = line
            }
        }
    }

    /// SIGHUP: re-read the configuration for the next launch; a bad one is logged and the old kept.
    private func reloadOnHangup() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            notifier.notify("RELOADING=1")
            do {
                let (config, catalog) = try Daemon.loadConfiguration(options: options, logger: logger)
                guard config.app == app?.settings else {
                    throw DaemonStartError(
                        description: "[app] changed (\(app?.settings.unit ?? "none") → \(config.app?.unit ?? "none")); that takes a restart of splashd",
                        exitCode: 78
                    )
                }
                let registry = Daemon.makeRegistry(
                    catalog: catalog, grace: options.pluginGrace, environment: options.environment, builtins: builtins,
                    containment: containment, app: app, logger: logger
                )
                controller.reload(graph: config.graph, settings: config.settings, plugins: registry)
                logger.notice("configuration reloaded from \(config.source): \(config.graph.steps.count) steps, effective from the next launch")
            } catch {
                logger.error("reload failed, keeping the running configuration: \(error)")
            }
            notifier.notify("READY=1")
        }
    }
}
