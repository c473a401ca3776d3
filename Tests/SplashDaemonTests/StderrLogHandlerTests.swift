#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import SplashCore
import SplashDaemon
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
        #expect(object["source"] == "SplashDaemonTests")
        #expect(object["file"]?.stringValue?.hasSuffix("StderrLogHandlerTests.swift") == true)
        #expect(object["line"]?.numberValue != nil)
        for (key, value) in ["both": "provider", "e": "event", "h": "handler", "p": "provider", "shared": "event"] {
            #expect(object[key] == .string(value), "\(key)")
        }
        #expect(object.count == 11)
    }
}
