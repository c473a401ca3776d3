public import SplashJSON

/// The checked options of a step whose plugin is built in, one case per plugin.
///
/// The config loader reads them from `[step.options]` with `init(plugin:options:)` and keeps them
/// in `StepSpec.builtin`; the plugin reads them from there (`StepSpec.builtinOptions(_:)`) and
/// never parses JSON options itself. `signal` takes no options.
public enum BuiltinOptions: Sendable, Equatable {
    /// An `auth-refresh` step's.
    case authRefresh(AuthRefreshOptions)
    /// A `config-fetch` step's.
    case configFetch(ConfigFetchOptions)
    /// A `launch-counter` step's.
    case launchCounter(LaunchCounterOptions)
    /// A `quick-action` step's.
    case quickAction(QuickActionOptions)
    /// A `signal` step's: none.
    case signal
    /// An `app-start` step's: none (the unit is `[app]`'s).
    case appStart

    /// Checks `options` for `plugin`, throwing about the first bad option; unknown options are
    /// rejected for every plugin.
    public init(plugin: BuiltinPlugin, options: [String: JSONValue]) throws(OptionError) {
        switch plugin {
        case .authRefresh: self = .authRefresh(try AuthRefreshOptions(options: options))
        case .configFetch: self = .configFetch(try ConfigFetchOptions(options: options))
        case .launchCounter: self = .launchCounter(try LaunchCounterOptions(options: options))
        case .quickAction: self = .quickAction(try QuickActionOptions(options: options))
        case .signal:
            _ = try OptionReader(options, known: [])
            self = .signal
        case .appStart:
            _ = try OptionReader(options, known: [])
            self = .appStart
        }
    }

    /// The options of a step of `plugin` that sets none.
    public static func defaults(for plugin: BuiltinPlugin) -> BuiltinOptions {
        switch plugin {
        case .authRefresh: .authRefresh(AuthRefreshOptions())
        case .configFetch: .configFetch(ConfigFetchOptions())
        case .launchCounter: .launchCounter(LaunchCounterOptions())
        case .quickAction: .quickAction(QuickActionOptions())
        case .signal: .signal
        case .appStart: .appStart
        }
    }

    /// The plugin the options are for.
    public var plugin: BuiltinPlugin {
        switch self {
        case .authRefresh: .authRefresh
        case .configFetch: .configFetch
        case .launchCounter: .launchCounter
        case .quickAction: .quickAction
        case .signal: .signal
        case .appStart: .appStart
        }
    }

    /// The options as `Options`, when they are that plugin's.
    public func options<Options: BuiltinPluginOptions>(as type: Options.Type) -> Options? {
        switch self {
        case .authRefresh(let options): options as? Options
        case .configFetch(let options): options as? Options
        case .launchCounter(let options): options as? Options
        case .quickAction(let options): options as? Options
        case .signal, .appStart: nil
        }
    }
}
