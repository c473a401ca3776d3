public import SplashCore

/// Everything the daemon takes from its configuration: splash timing, socket, and the step graph.
public struct DaemonConfig: Sendable, Equatable {
    /// The `[splash]` section.
    public var settings: SplashSettings
    /// The `[socket]` section.
    public var socket: SocketSettings
    /// The validated graph of `[[step]]` entries (empty when the file has none).
    public var graph: StepGraph
    /// The `[daemon]` section.
    public var daemon: DaemonSettings = DaemonSettings()
    /// The `[app]` section: the app's unit splashd watches after `finished`; nil when absent.
    public var app: AppSettings?
    /// The `[update]` section.
    public var update = UpdateSettings()
    /// The file the config came from, or `"embedded default"`.
    public var source: String

    /// The `source` of `embeddedDefault()`.
    public static let embeddedSource = "embedded default"

    /// Creates a config from its parts; `graph` is already validated.
    public init(settings: SplashSettings, socket: SocketSettings, graph: StepGraph, source: String) {
        self.settings = settings
        self.socket = socket
        self.graph = graph
        self.source = source
    }

    /// The config used when no file exists at the default path: default settings and socket,
    /// and the four built-in steps.
    ///
    /// `auth-refresh` ("Signing in") and `config-fetch` ("Loading configuration") are critical;
    /// `launch-counter` (after `auth-refresh`) and `quick-action` are not.
    public static func embeddedDefault() -> DaemonConfig {
        let steps = [
            defaultStep(.authRefresh, label: "Signing in"),
            defaultStep(.configFetch, label: "Loading configuration"),
            defaultStep(.launchCounter, after: [.authRefresh], critical: false),
            defaultStep(.quickAction, critical: false),
        ]
        let graph: StepGraph
        do {
            graph = try StepGraph(steps: steps, isKnownPlugin: BuiltinPlugin.names.contains)
        } catch {
            preconditionFailure("the embedded default step graph is invalid: \(error)")
        }
        return DaemonConfig(settings: SplashSettings(), socket: SocketSettings(), graph: graph, source: embeddedSource)
    }

    /// A step of the embedded default: named after its plugin, with the plugin's default options.
    private static func defaultStep(
        _ plugin: BuiltinPlugin, after: [BuiltinPlugin] = [], critical: Bool = true, label: String? = nil
    ) -> StepSpec {
        StepSpec(
            id: plugin.name, plugin: plugin.name, after: after.map(\.name), critical: critical, label: label,
            builtin: .defaults(for: plugin)
        )
    }
}

/// The `[daemon]` section: how the daemon process itself behaves.
public struct DaemonSettings: Sendable, Equatable {
    /// `release_memory_after_launch`: at `finished`, ask the kernel to reclaim the clean
    /// file-backed pages the launch touched and return free heap (default on).
    public var releaseMemoryAfterLaunch = true

    public init(releaseMemoryAfterLaunch: Bool = true) {
        self.releaseMemoryAfterLaunch = releaseMemoryAfterLaunch
    }
}

/// The `[update]` section: the update view's sources (`SplashMode.update`).
public struct UpdateSettings: Sendable, Equatable {
    /// `psplash_fifo`: read psplash's FIFO (`$PSPLASH_FIFO_DIR/psplash_fifo`, `/run/psplash_fifo`
    /// by default), so SWUpdate's `swupdate-progress -p`, Mender's state scripts and
    /// `psplash-write` drive the update view (default off).
    public var psplashFIFO = false
    /// `rauc`: follow RAUC's installer on the system bus (`Operation`, `Progress`, `LastError`,
    /// `Completed`) (default off).
    public var rauc = false
    /// `end_view`: how long a finished update's view ("Restarting…", or its error) stays before
    /// the launch's view comes back (default 10 s), unless the device goes down first.
    public var endView: Duration = .seconds(10)

    public init(psplashFIFO: Bool = false, rauc: Bool = false, endView: Duration = .seconds(10)) {
        self.psplashFIFO = psplashFIFO
        self.rauc = rauc
        self.endView = endView
    }
}
