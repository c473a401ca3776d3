#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import SplashCore
import SplashJSON
import SplashJournalWriter
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct StderrLogHandlerTests {
    static let provider = Logger.MetadataProvider { ["shared": "provider", "both": "provider", "p": "provider"] }

    /// The lines a logger with a `StderrLogHandler` in `format` writes while `body` runs.
    static func lines(_ format: StderrLogHandler.Format, _ body: (inout Logger) -> Void) throws -> [String] {
        var pipeEnds: [Int32] = [-1, -1]
        try #require(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]) }
        var logger = Logger(label: "splashd.tests") { label in
            StderrLogHandler(label: label, format: format, level: .debug, metadataProvider: provider, outputDescriptor: pipeEnds[1])
        }
        body(&logger)
        close(pipeEnds[1])
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            output += chunk[..<count]
        }
        return String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The handler's metadata, then the provider's, then the record's: a later one wins a key.
    static func logMergedRecord(_ logger: inout Logger) {
        logger[metadataKey: "shared"] = "handler"
        logger[metadataKey: "both"] = "handler"
        logger[metadataKey: "h"] = "handler"
        logger.info("step display succeeded", metadata: ["shared": "event", "e": "event"])
        logger.trace("below the level")
    }

    @Test func textHasTheTimeTheLevelTheMessageAndTheMergedMetadataInKeyOrder() throws {
        let lines = try Self.lines(.text, Self.logMergedRecord)
        #expect(lines.count == 2 && lines.last == "", "one line, ending in a newline: \(lines)")
        let line = try #require(lines.first)
        let time = try #require(line.split(separator: " ").first)
        #expect(time.count == "2026-11-22T12:00:00.123Z".count && time.hasSuffix("Z") && time.contains("T"), "\(time)")
        #expect(line.dropFirst(time.count) == " info step display succeeded both=provider e=event h=handler p=provider shared=event")
    }

    @Test func jsonHasOneObjectPerRecordWithTheMergedMetadataAsStrings() throws {
        let lines = try Self.lines(.json, Self.logMergedRecord)
        #expect(lines.count == 2 && lines.last == "", "one line, ending in a newline: \(lines)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix(#"{"time":""#))
        let object = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)).objectValue)
        #expect(object["level"] == "info")
        #expect(object["message"] == "step display succeeded")
        #expect(object["source"] == "SplashJournalWriterTests")
        #expect(object["file"]?.stringValue?.hasSuffix("StderrLogHandlerTests.swift") == true)
        #expect(object["line"]?.numberValue != nil)
        for (key, value) in ["both": "provider", "e": "event", "h": "handler", "p": "provider", "shared": "event"] {
            #expect(object[key] == .string(value), "\(key)")
        }
        #expect(object.count == 11)
    }

    static let forged = "x\n2026-01-01T00:00:00.000Z critical FORGED root login \u{1B}[31m\u{9B}\u{202E}\r"

    /// A record whose message, metadata key and value all carry a forged record and escapes.
    static func logForged(_ logger: inout Logger) {
        logger.warning("dropped: \(forged)", metadata: ["input": "\(forged)", "key\nFORGED\u{1B}": "v"])
    }

    @Test func textEscapesTheMessageAndEveryMetadataKeyAndValue() throws {
        let lines = try Self.lines(.text, Self.logForged)
        #expect(lines.count == 2 && lines.last == "", "one line, ending in a newline: \(lines)")
        let line = try #require(lines.first)
        let escaped = #"x\n2026-01-01T00:00:00.000Z critical FORGED root login \x1b[31m\u009b\u202e\r"#
        #expect(line.hasSuffix(" warning dropped: \(escaped) both=provider input=\(escaped) key\\nFORGED\\x1b=v p=provider shared=provider"), "\(line)")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
    }

    @Test func jsonEscapesTheSameAndReadsBackExactly() throws {
        let lines = try Self.lines(.json, Self.logForged)
        #expect(lines.count == 2 && lines.last == "", "one line, ending in a newline: \(lines)")
        let line = try #require(lines.first)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
        let object = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)).objectValue)
        #expect(object["message"] == .string("dropped: \(Self.forged)"))
        #expect(object["input"] == .string(Self.forged))
        #expect(object["key\nFORGED\u{1B}"] == "v")
    }
}
