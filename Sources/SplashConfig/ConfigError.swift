/// A problem with a configuration file or plugin manifest, located in its file.
///
/// Printed as `PATH:LINE: message`, or `PATH: message` when no line is known. `splashd check`
/// prints it and exits 78 (`EX_CONFIG`).
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file the problem is in (as given, not made absolute).
    public var file: String
    /// The 1-based line the problem is on, if it could be located.
    public var line: Int?
    /// What is wrong, without the location.
    public var message: String

    /// Creates an error about `file`, at `line` if known.
    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, or `file: message` without a line.
    public var description: String {
        if let line { "\(file):\(line): \(message)" } else { "\(file): \(message)" }
    }
}
