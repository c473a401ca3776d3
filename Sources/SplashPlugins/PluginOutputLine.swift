import SplashCore
package import SplashJSON

/// One line of an external plugin's standard output, classified.
///
/// Protocol lines are JSON objects with any of the keys `progress` (a number, clamped to 0...1),
/// `message` (a string) and `facts` (an object). Anything else is text for the log.
package enum PluginOutputLine: Equatable {
    /// A protocol line; each member is set when the line carried that key.
    case report(progress: Double?, message: String?, facts: Facts?)
    /// A line that starts like JSON but is not a valid protocol line; `reason` says why.
    case malformed(reason: String)
    /// Plain text.
    case text

    /// Classifies one line (without its newline).
    package static func parse(_ line: String) -> PluginOutputLine {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == "{" else { return .text }
        let value: JSONValue
        do {
            value = try JSONReader.value(of: trimmed.utf8)
        } catch {
            return .malformed(reason: "not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            return .malformed(reason: "not a JSON object")
        }
        var progress: Double?
        var message: String?
        var facts: Facts?
        if let raw = members["progress"] {
            guard let number = raw.numberValue, number.isFinite else {
                return .malformed(reason: "\"progress\" is not a number")
            }
            progress = min(1, max(0, number))
        }
        if let raw = members["message"] {
            guard let text = raw.stringValue else {
                return .malformed(reason: "\"message\" is not a string")
            }
            message = text
        }
        if let raw = members["facts"] {
            guard let object = raw.objectValue else {
                return .malformed(reason: "\"facts\" is not an object")
            }
            facts = object
        }
        if progress == nil, message == nil, facts == nil {
            return .malformed(reason: "no \"progress\", \"message\" or \"facts\" key")
        }
        return .report(progress: progress, message: message, facts: facts)
    }
}
