import SplashJSON
public import SplashProtocol

/// A bad option of a built-in plugin: which option, and what is wrong with it.
///
/// `message` is complete and names the option (`option 'skew' must be a duration like "5s" or
/// "250ms", not 60`); the config check prints it at the option's line, and a step that meets it at
/// run time fails with `stepFailure(plugin:)`.
public struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failure code of a step whose options are bad.
    public static let failureCode: ErrorCode = .badOptions

    /// The option's name as written in `[step.options]`.
    public var option: String
    /// What is wrong, naming the option.
    public var message: String

    /// Creates an error about `option`; `message` names the option itself.
    public init(option: String, message: String) {
        self.option = option
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The error as the failure of a step of `plugin`: code `bad-options`, not retryable (a retry
    /// cannot fix a config).
    public func stepFailure(plugin: BuiltinPlugin) -> StepFailure {
        StepFailure(code: Self.failureCode, message: "\(plugin.name): \(message)", retryable: false)
    }

    /// `option 'NAME' TEXT`.
    static func option(_ name: String, _ text: String) -> OptionError {
        OptionError(option: name, message: "option '\(name)' \(text)")
    }

    /// A value as compact JSON, for messages.
    static func show(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }
}
