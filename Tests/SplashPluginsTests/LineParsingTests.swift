import SplashCore
@testable import SplashPlugins
import Testing

@Suite("Plugin output lines")
struct LineParsingTests {
    @Test func splitsAcrossChunksAndStripsCarriageReturns() {
        var splitter = LineSplitter(maxLength: 64)
        #expect(splitter.feed(Array("ab".utf8)) == [])
        #expect(splitter.feed(Array("c\nde\r\n\nf".utf8)).map(\.text) == ["abc", "de", ""])
        #expect(splitter.finish() == LineSplitter.Line(text: "f", truncated: false))
        #expect(splitter.finish() == nil)
    }

    @Test func cutsOverlongLinesOnceAndResumesAfterTheirNewline() {
        var splitter = LineSplitter(maxLength: 4)
        var lines = splitter.feed(Array("abcdef".utf8))
        lines += splitter.feed(Array("ghi\nxy\nabcd\n".utf8))
        #expect(lines == [
            LineSplitter.Line(text: "abcd", truncated: true),
            LineSplitter.Line(text: "xy", truncated: false),
            LineSplitter.Line(text: "abcd", truncated: false),
        ])
    }

    @Test func repairsInvalidUTF8() {
        var splitter = LineSplitter(maxLength: 16)
        #expect(splitter.feed([0x61, 0xFF, 0x62, 0x0A]).map(\.text) == ["a\u{FFFD}b"])
    }

    @Test func parsesProtocolLines() {
        #expect(PluginOutputLine.parse(#"{"progress":0.5}"#) == .report(progress: 0.5, message: nil, facts: nil))
        #expect(PluginOutputLine.parse(#"  {"progress":-1}"#) == .report(progress: 0, message: nil, facts: nil))
        #expect(PluginOutputLine.parse(#"{"message":"Hi"}"#) == .report(progress: nil, message: "Hi", facts: nil))
        #expect(
            PluginOutputLine.parse(#"{"facts":{"a":[1,true]}}"#)
                == .report(progress: nil, message: nil, facts: ["a": .array([.number(1), .bool(true)])])
        )
    }

    @Test(arguments: [
        "plain text", "", "[1,2]", "not {json}",
    ])
    func plainText(line: String) {
        #expect(PluginOutputLine.parse(line) == .text)
    }

    @Test(arguments: [
        "{", #"{"progress":"half"}"#, #"{"message":1}"#, #"{"facts":[1]}"#, #"{"other":1}"#, "{}",
    ])
    func malformed(line: String) {
        guard case .malformed = PluginOutputLine.parse(line) else {
            Issue.record("\(line) should be malformed")
            return
        }
    }
}
