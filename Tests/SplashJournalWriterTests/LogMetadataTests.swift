import Logging
import SplashJournalWriter
import Testing

@Suite struct LogMetadataTests {
    /// swift-log's order: the handler's metadata, then the provider's, then the record's own.
    @Test func theRecordWinsOverTheProviderWhichWinsOverTheHandler() {
        let provider = Logger.MetadataProvider { ["shared": "provider", "both": "provider", "p": "provider"] }
        let metadata = LogMetadata(
            handler: ["shared": "handler", "both": "handler", "h": "handler"],
            provider: provider,
            event: ["shared": "event", "e": "event"]
        )
        #expect(metadata.merged == ["both": "provider", "e": "event", "h": "handler", "p": "provider", "shared": "event"])
        #expect(metadata.keys == ["both", "e", "h", "p", "shared"])
        #expect(metadata.text == " both=provider e=event h=handler p=provider shared=event")
    }

    @Test func withoutMetadataTheTextIsEmpty() {
        let metadata = LogMetadata(handler: [:], provider: Logger.MetadataProvider { [:] }, event: nil)
        #expect(metadata.merged.isEmpty)
        #expect(metadata.text == "")
    }

    @Test func valuesAreRenderedAsSwiftLogDescribesThem() {
        let metadata = LogMetadata(handler: ["list": ["a", "b"], "map": ["k": "v"]], provider: nil, event: ["n": "\(3)"])
        #expect(metadata.entries.map(\.key) == ["list", "map", "n"])
        #expect(metadata.text == #" list=["a", "b"] map=["k": "v"] n=3"#)
    }
    @Test func keysAndValuesAreEscapedInTheText() {
        let metadata = LogMetadata(handler: [:], provider: nil, event: ["a\nb": "x\n2026 critical FORGED\u{1B}[2J", "ok": "\u{202E}"])
        #expect(metadata.text == #" a\nb=x\n2026 critical FORGED\x1b[2J ok=\u202e"#)
        // The merged values stay as they were (the journal's fields take them exactly).
        #expect(metadata.merged["a\nb"] == "x\n2026 critical FORGED\u{1B}[2J")
    }
}
