import Logging
import SplashCore
import SplashJSON
import Subprocess

/// Reads an external plugin's stdout and stderr line by line, reporting and logging them.
enum PluginOutputReader {
    /// Reads stdout to its end: reports progress and messages, logs other lines, returns the facts.
    static func readOutput(
        _ output: SubprocessOutputSequence,
        report: @Sendable (StepReport) -> Void,
        logger: Logger,
        maxLineLength: Int = ExternalPlugin.maxLineLength
    ) async throws -> Facts {
        var facts: Facts = [:]
        try await readLines(output, maxLineLength: maxLineLength) { line in
            handleOutputLine(line, facts: &facts, report: report, logger: logger, maxLineLength: maxLineLength)
        }
        return facts
    }

    /// Reads stderr to its end, logging each line; returns the last non-empty line.
    static func readErrors(
        _ errors: SubprocessOutputSequence,
        logger: Logger,
        maxLineLength: Int = ExternalPlugin.maxLineLength
    ) async throws -> String? {
        var last: String?
        try await readLines(errors, maxLineLength: maxLineLength) { line in
            let suffix = line.truncated ? " [truncated at \(maxLineLength) bytes]" : ""
            logger.info("\(line.text)\(suffix)", metadata: ["stream": "stderr"])
            let trimmed = line.text.trimmingWhitespace()
            if !trimmed.isEmpty {
                last = trimmed
            }
        }
        return last
    }

    private static func readLines(
        _ sequence: SubprocessOutputSequence,
        maxLineLength: Int,
        _ handle: (LineSplitter.Line) -> Void
    ) async throws {
        var splitter = LineSplitter(maxLength: maxLineLength)
        for try await buffer in sequence {
            let lines = buffer.withUnsafeBytes { splitter.feed($0) }
            lines.forEach(handle)
        }
        if let last = splitter.finish() {
            handle(last)
        }
    }

    private static func handleOutputLine(
        _ line: LineSplitter.Line,
        facts: inout Facts,
        report: @Sendable (StepReport) -> Void,
        logger: Logger,
        maxLineLength: Int
    ) {
        if line.truncated {
            logger.warning(
                "\(line.text) [truncated at \(maxLineLength) bytes]",
                metadata: ["stream": "stdout"]
            )
            return
        }
        switch PluginOutputLine.parse(line.text) {
        case .text:
            if !line.text.isEmpty {
                logger.info("\(line.text)", metadata: ["stream": "stdout"])
            }
        case .malformed(let reason):
            // A protocol line that went wrong may carry facts (tokens, say): an excerpt only.
            logger.warning("malformed plugin output (\(reason)): \(LogExcerpt.of(line.text))", metadata: ["stream": "stdout"])
        case .report(let progress, let message, let newFacts):
            if let progress {
                report(.progress(progress))
            }
            if let message {
                report(.message(message))
            }
            if let newFacts {
                facts.merge(newFacts) { _, later in later }
            }
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
