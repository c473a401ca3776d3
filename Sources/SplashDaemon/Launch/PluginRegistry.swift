import SplashCore
public import SplashPlugins

/// Completes `signal` steps: the part of the signal plugin the socket's `complete` command reaches.
public protocol SignalCompleting: Sendable {
    /// A client reported that step `step` is done (before or while it waits).
    func complete(step: String)
    /// A new launch began: forget earlier completions.
    func reset()
}

/// The plugins a daemon can run, by name.
public struct PluginRegistry: Sendable {
    /// The name of the built-in plugin that waits for a client's `complete`.
    public static let signalPluginName = BuiltinPlugin.signal.name

    private var plugins: [String: any StepPlugin]
    /// Where `complete` commands go, when the registry has the signal plugin.
    public var signalBoard: (any SignalCompleting)?

    public init(plugins: [String: any StepPlugin], signalBoard: (any SignalCompleting)? = nil) {
        self.plugins = plugins
        self.signalBoard = signalBoard
    }

    /// The plugin called `name`.
    public func plugin(named name: String) -> (any StepPlugin)? { plugins[name] }

    /// Whether a step may use plugin `name`.
    public func contains(_ name: String) -> Bool { plugins[name] != nil }
}
