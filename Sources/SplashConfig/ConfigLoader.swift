import SplashCore
import SplashProtocol
import SplashSupport

/// Reads the daemon's TOML configuration into a validated `DaemonConfig`.
///
/// Every rejection is a `ConfigError` naming the file and, where it can be found, the line:
/// TOML syntax errors, unknown keys (anywhere but inside an external plugin's `[step.options]`),
/// wrong value types, bad durations and modes, missing step ids or plugins, bad options of a
/// built-in plugin (read into `StepSpec.builtin` as the plugin would read them), and step graph
/// problems (duplicate ids, unknown dependencies or plugins, cycles).
public enum ConfigLoader {
    /// Where the daemon looks for its configuration.
    public static let defaultPath = "/etc/splashd/splashd.toml"

    /// The largest config file read, 16 MiB (80,000 steps take about 5 MB): anything larger, or
    /// anything that is not a regular file (a FIFO, /dev/zero), is refused without being read.
    public static let maximumFileSize = 16 << 20

    static let topLevelKeys: Set<String> = ["splash", "socket", "daemon", "app", "update", "step"]
    static let updateKeys: Set<String> = ["psplash_fifo", "rauc", "end_view"]
    static let appKeys: Set<String> = ["unit", "heartbeat", "max_restarts", "restart_window"]
    static let daemonKeys: Set<String> = ["release_memory_after_launch"]
    static let splashKeys: Set<String> = ["min_display", "slow_after", "timeout", "exit_animation", "allow_offline"]
    static let socketKeys: Set<String> = ["path", "mode", "control_group", "max_clients"]

    /// Parses and validates the config text `text`; `file` is used in messages and as `source`.
    ///
    /// `catalog` decides which plugin names are known and supplies manifest default timeouts;
    /// `system` whether `control_group` exists. Every problem found is reported, not only the
    /// first: each section and each step is checked on its own (the first problem of each), and
    /// the graph of the steps that could be read.
    public static func parse(
        _ text: String, file: String, catalog: PluginCatalog, system: SystemLookup = .live
    ) throws(ConfigError) -> DaemonConfig {
        try parse(TableReader.parse(text, file: file), catalog: catalog, system: system)
    }

    private static func parse(_ root: TableReader, catalog: PluginCatalog, system: SystemLookup) throws(ConfigError) -> DaemonConfig {
        let file = root.file
        var problems: [ConfigError.Problem] = []
        problems.collect(try root.checkKeys(topLevelKeys))
        let settings = problems.collect(try readSplash(root.table("splash", suffix: " in [splash]")))
        let socket = problems.collect(try readSocket(root.table("socket", suffix: " in [socket]"), system: system))
        let daemon = problems.collect(try readDaemon(root.table("daemon", suffix: " in [daemon]")))
        let update = problems.collect(try readUpdate(root.table("update", suffix: " in [update]")))
        let appTable = problems.collect(try root.table("app", suffix: " in [app]")) ?? nil
        var app: AppSettings?
        if let appTable { app = problems.collect(try readApp(appTable)) }
        var (steps, unread) = StepReader.readAll(root, catalog: catalog, problems: &problems)
        addAppStep(to: &steps, app: appTable, root: root, problems: &problems)
        let graph = checkGraph(steps, unread: unread, catalog: catalog, root: root, problems: &problems)
        guard problems.isEmpty, let settings, let socket, let daemon, let update, let graph else {
            throw ConfigError(problems: problems)
        }
        var config = DaemonConfig(settings: settings, socket: socket, graph: graph, source: file)
        config.daemon = daemon
        config.app = app
        config.update = update
        return config
    }

    /// Reads the file at `path` and parses it; an unreadable file is a `ConfigError` too, and so
    /// is one that is not a regular file or is larger than `maximumFileSize`.
    public static func load(path: String, catalog: PluginCatalog, system: SystemLookup = .live) throws(ConfigError) -> DaemonConfig {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(path, limit: maximumFileSize)
        } catch {
            throw ConfigError(file: path, message: "cannot read config: \(error.reason)")
        }
        return try parse(TableReader.parse(bytes: bytes, file: path), catalog: catalog, system: system)
    }

    /// Loads `path`, or returns `DaemonConfig.embeddedDefault()` when no file exists there.
    ///
    /// Any other trouble (unreadable, invalid) is still an error: a broken config is never
    /// silently replaced by the default.
    public static func loadOrDefault(
        path: String = defaultPath, catalog: PluginCatalog, system: SystemLookup = .live
    ) throws(ConfigError) -> DaemonConfig {
        guard FileSystem.exists(path) else { return .embeddedDefault() }
        return try load(path: path, catalog: catalog, system: system)
    }

    private static func readSplash(_ reader: TableReader?) throws(ConfigError) -> SplashSettings {
        var settings = SplashSettings()
        guard let reader else { return settings }
        try reader.checkKeys(splashKeys)
        if let value = try reader.duration("min_display") { settings.minDisplay = value }
        if let value = try reader.duration("slow_after") { settings.slowAfter = value }
        if let value = try reader.duration("timeout") { settings.timeout = value }
        if let value = try reader.duration("exit_animation") { settings.exitAnimation = value }
        if let value = try reader.bool("allow_offline") { settings.allowOffline = value }
        return settings
    }

    /// The `[app]` section: a valid service unit name, a heartbeat of at least a second, a
    /// positive restart count and window.
    private static func readApp(_ reader: TableReader) throws(ConfigError) -> AppSettings {
        try reader.checkKeys(appKeys)
        guard let unit = try reader.string("unit") else {
            throw reader.error(at: nil, "[app] needs unit, the app's systemd unit (e.g. unit = \"kiosk-app.service\")")
        }
        if let problem = AppSettings.problem(withUnitName: unit) {
            throw reader.error(at: "unit", "unit \"\(unit.prefix(120))\" in [app] \(problem)")
        }
        var app = AppSettings(unit: unit)
        if let heartbeat = try reader.duration("heartbeat") {
            guard heartbeat >= AppSettings.minimumHeartbeat else {
                throw reader.error(at: "heartbeat", "heartbeat in [app] must be at least 1s (a heartbeat is a message on the socket, not a busy loop)")
            }
            app.heartbeat = heartbeat
        }
        if let restarts = try reader.int("max_restarts") {
            guard (1...1000).contains(restarts) else {
                throw reader.error(at: "max_restarts", "max_restarts in [app] must be from 1 to 1000")
            }
            app.maxRestarts = restarts
        }
        if let window = try reader.duration("restart_window") {
            guard window >= .seconds(1) else {
                throw reader.error(at: "restart_window", "restart_window in [app] must be at least 1s")
            }
            app.restartWindow = window
        }
        return app
    }

    /// With `[app]`, the graph gets the step that starts the app's unit (`app`, plugin
    /// `app-start`, design §14), unless a step of the file already uses that plugin; without
    /// `[app]`, a step using it is a problem.
    private static func addAppStep(
        to steps: inout [StepReader.Entry], app: TableReader?, root: TableReader, problems: inout [ConfigError.Problem]
    ) {
        let name = BuiltinPlugin.appStart.name
        let users = steps.filter { $0.spec.plugin == name }
        guard let app else {
            for entry in users {
                problems.append(entry.reader.error(at: "plugin", "plugin \(name) needs an [app] section naming the app's unit").problems[0])
            }
            return
        }
        guard users.isEmpty else { return }
        if let taken = steps.first(where: { $0.spec.id == "app" }) {
            problems.append(
                taken.reader.error(at: "id", "step id \"app\" is taken: [app] adds a step \"app\" (plugin \(name)); rename this step, or make it use plugin \(name)").problems[0]
            )
            return
        }
        // A restart of the system bus takes seconds: ridden out, 31 s in all (docs/configuration.md).
        let spec = StepSpec(
            id: "app", plugin: name, critical: true, retry: StepSpec.RetryPolicy(attempts: 6, backoff: .seconds(1)),
            label: "Starting the app", builtin: .defaults(for: .appStart)
        )
        steps.append(StepReader.Entry(spec: spec, reader: app))
    }

    /// The `[update]` section: which updaters' words turn the update view on, and how long a
    /// finished update's view stays (0 to 10 minutes).
    private static func readUpdate(_ reader: TableReader?) throws(ConfigError) -> UpdateSettings {
        var update = UpdateSettings()
        guard let reader else { return update }
        try reader.checkKeys(updateKeys)
        if let value = try reader.bool("psplash_fifo") { update.psplashFIFO = value }
        if let value = try reader.bool("rauc") { update.rauc = value }
        if let value = try reader.duration("end_view") {
            guard value <= .seconds(600) else {
                throw reader.error(at: "end_view", "end_view in [update] must be at most 10m (the view of a finished update, before the app comes back)")
            }
            update.endView = value
        }
        return update
    }

    private static func readDaemon(_ reader: TableReader?) throws(ConfigError) -> DaemonSettings {
        var daemon = DaemonSettings()
        guard let reader else { return daemon }
        try reader.checkKeys(daemonKeys)
        if let value = try reader.bool("release_memory_after_launch") { daemon.releaseMemoryAfterLaunch = value }
        return daemon
    }

    /// The `[socket]` section, checked as the daemon will use it: the path must fit a socket
    /// address and the control group must exist (the daemon refuses to start otherwise).
    private static func readSocket(_ reader: TableReader?, system: SystemLookup) throws(ConfigError) -> SocketSettings {
        var socket = SocketSettings()
        guard let reader else { return socket }
        try reader.checkKeys(socketKeys)
        if let path = try reader.string("path") {
            guard path.hasPrefix("/") else {
                throw reader.error(at: "path", "socket path \"\(path)\" must be absolute")
            }
            guard !path.utf8.contains(0) else {
                throw reader.error(at: "path", "socket path must not contain a NUL character")
            }
            let length = path.utf8.count
            guard length <= SocketSettings.maximumPathLength else {
                throw reader.error(
                    at: "path",
                    "socket path is \(length) bytes long; a Unix socket path holds at most \(SocketSettings.maximumPathLength)"
                )
            }
            socket.path = path
        }
        if let value = reader.table["mode"] {
            let hint = "expected octal permission bits up to 0777, e.g. \"0660\" or 0o660"
            if let text = value.string {
                guard let mode = SocketSettings.parseMode(text) else {
                    throw reader.error(at: "mode", "bad mode \"\(text)\" in [socket]: \(hint)")
                }
                socket.mode = mode
            } else if let number = value.int {
                guard (0...0o777).contains(number) else {
                    throw reader.error(at: "mode", "bad mode \(number) in [socket]: \(hint) (a plain integer is decimal)")
                }
                socket.mode = UInt32(number)
            } else {
                throw reader.error(
                    at: "mode",
                    "wrong type for mode in [socket]: expected a string or an integer, found \(value.type.withArticle)"
                )
            }
        }
        if let group = try reader.string("control_group") {
            guard !group.isEmpty else { throw reader.error(at: "control_group", "control_group must not be empty") }
            guard system.groupExists(group) else {
                throw reader.error(at: "control_group", "control_group \"\(group)\" does not exist")
            }
            socket.controlGroup = group
        }
        if let maxClients = try reader.int("max_clients") {
            let range = SocketSettings.maxClientsRange
            guard range.contains(maxClients) else {
                throw reader.error(at: "max_clients", "max_clients in [socket] must be from \(range.lowerBound) to \(range.upperBound), not \(maxClients)")
            }
            socket.maxClients = maxClients
        }
        return socket
    }

    /// The graph of the steps read, or nil after adding its problems (or when there were
    /// problems before) to `problems`. A dependency on a step in `unread` (one that could not be
    /// read, already reported) is not a problem of its own.
    private static func checkGraph(
        _ steps: [StepReader.Entry], unread: Set<String>, catalog: PluginCatalog, root: TableReader,
        problems: inout [ConfigError.Problem]
    ) -> StepGraph? {
        let specs = steps.map(\.spec)
        for (index, problem) in StepGraph.problems(in: specs, isKnownPlugin: catalog.isKnown) {
            if case .unknownDependency(_, let dependency) = problem, unread.contains(dependency) { continue }
            problems.append(locate(problem, in: steps[index], file: root.file))
        }
        guard problems.isEmpty else { return nil }
        if let (index, bytes) = StateBudget.overflow(specs) {
            problems.append(
                steps[index].reader.error(
                    at: "id",
                    "the splash's state would be up to \(bytes) bytes with these \(specs.count) steps, over the protocol's "
                        + "line of \(SocketDefaults.maxLineBytes) bytes (every state lists every step with its id and label); "
                        + "this is the first step that does not fit: use fewer steps or shorter labels"
                ).problems[0])
            return nil
        }
        do {
            return try StepGraph(steps: specs, isKnownPlugin: catalog.isKnown)
        } catch {
            // Not expected: init throws the first of the problems listed above, and there were none.
            problems.append(ConfigError.Problem(file: root.file, message: error.description))
            return nil
        }
    }

    /// A graph problem as a message at the line of the step's offending key.
    private static func locate(_ problem: StepGraph.Problem, in step: StepReader.Entry, file: String) -> ConfigError.Problem {
        let key: String
        switch problem {
        case .duplicateID, .emptyID: key = "id"
        case .unknownDependency, .cycle: key = "after"
        case .unknownPlugin: key = "plugin"
        }
        return ConfigError.Problem(file: file, line: step.reader.lineOf(key), message: problem.description)
    }
}
