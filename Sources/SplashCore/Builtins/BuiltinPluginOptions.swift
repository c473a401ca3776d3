public import SplashJSON

/// The checked options of one built-in plugin, read from a step's `[step.options]`.
///
/// The config loader reads them when it reads the file (so `splashd check` rejects what a step
/// would), and the plugin takes them from `StepSpec.builtin`; see `StepSpec.builtinOptions(_:)`.
public protocol BuiltinPluginOptions: Sendable, Equatable {
    /// The plugin these options belong to.
    static var plugin: BuiltinPlugin { get }
    /// The option names the plugin knows; any other is rejected.
    static var knownOptions: Set<String> { get }
    /// Checks a step's raw options, throwing about the first bad one.
    init(options: [String: JSONValue]) throws(OptionError)
}
