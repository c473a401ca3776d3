/// Reading a step's built-in options: parsed by the config loader, or once here for a step built
/// without them.
extension StepSpec {
    /// The options of built-in plugin `plugin` for this step: `builtin` when it holds that
    /// plugin's, else `options` checked now.
    ///
    /// - Throws: a `StepFailure` with code `bad-options`, not retryable, naming the option.
    public func builtinOptions(for plugin: BuiltinPlugin) throws(StepFailure) -> BuiltinOptions {
        if let builtin, builtin.plugin == plugin { return builtin }
        do {
            return try BuiltinOptions(plugin: plugin, options: options)
        } catch {
            throw error.stepFailure(plugin: plugin)
        }
    }

    /// The typed options of `Options`' plugin for this step; see `builtinOptions(for:)`.
    public func builtinOptions<Options: BuiltinPluginOptions>(_ type: Options.Type) throws(StepFailure) -> Options {
        if let parsed = builtin?.options(as: type) { return parsed }
        do {
            return try Options(options: options)
        } catch {
            throw error.stepFailure(plugin: Options.plugin)
        }
    }
}
