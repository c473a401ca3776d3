/// The problems of a configuration file or plugin manifest, each located in its file.
///
/// Printed one per line as `PATH:LINE: message`, or `PATH: message` when no line is known.
/// `splashd check` prints them and exits 78 (`EX_CONFIG`). `file`, `line` and `message` are those
/// of the first problem.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One problem, located in its file.
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        /// The file the problem is in (as given, not made absolute).
        public var file: String
        /// The 1-based line the problem is on, if it could be located.
        public var line: Int?
        /// What is wrong, without the location.
        public var message: String

        /// Creates a problem in `file`, at `line` if known.
        public init(file: String, line: Int? = nil, message: String) {
            self.file = file
            self.line = line
            self.message = message
        }

        /// `file:line: message`, or `file: message` without a line; control characters (which a
        /// file name, key or value may hold) are written as `\u{7}` escapes, so that a problem is
        /// one line on a terminal or in a log, and acts on neither.
        public var description: String {
            let text = if let line { "\(file):\(line): \(message)" } else { "\(file): \(message)" }
            return Self.escapingControls(text)
        }

        static func escapingControls(_ text: String) -> String {
            guard text.unicodeScalars.contains(where: isControl) else { return text }
            var escaped = ""
            for scalar in text.unicodeScalars {
                if isControl(scalar) {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }

        private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true
            default: false
            }
        }
    }

    /// Every problem found, in the order of the file (those without a line last); never empty.
    public let problems: [Problem]

    /// The file of the first problem.
    public var file: String { problems[0].file }
    /// The line of the first problem, if it could be located.
    public var line: Int? { problems[0].line }
    /// The first problem, without its location.
    public var message: String { problems[0].message }

    /// Creates an error with one problem, in `file`, at `line` if known.
    public init(file: String, line: Int? = nil, message: String) {
        problems = [Problem(file: file, line: line, message: message)]
    }

    /// Creates an error with several problems, sorted by line (those without one last, the
    /// order of equal lines kept).
    ///
    /// - Precondition: `problems` is not empty.
    public init(problems: [Problem]) {
        precondition(!problems.isEmpty, "a ConfigError has at least one problem")
        self.problems = problems.enumerated()
            .sorted { ($0.element.line ?? .max, $0.offset) < ($1.element.line ?? .max, $1.offset) }
            .map(\.element)
    }

    /// One `file:line: message` per problem, a line each.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

extension [ConfigError.Problem] {
    /// Reads with `read`, keeping its problems instead of stopping at them; nil when it threw.
    package mutating func collect<T>(_ read: @autoclosure () throws(ConfigError) -> T) -> T? {
        do {
            return try read()
        } catch {
            append(contentsOf: error.problems)
            return nil
        }
    }
}
