import Foundation
@testable import SplashScene
import Testing
import TestSupport

/// The index splashd-kms-first-frame reads, and the hand-over it leaves the renderer.
@Suite struct FirstFrameIndexTests {
    @Test func theIndexIsOneLineARecordEachEndingInANewline() throws {
        let text = try #require(FirstFrameIndex.encode(
            arguments: 0xABC,
            outputs: [.init(name: "Virtual-1", width: 1280, height: 800, file: "first-frame-1280x800-0.raw")],
            files: [.init(path: "/usr/share/splashd/themes/default/theme.toml", size: 512, modified: 1_700_000_000_123_456_789)],
            absent: ["/etc/splashd/theme/theme.toml"]))
        #expect(text == """
            splashd-kms first frames 1
            arguments\tabc
            output\tVirtual-1\t1280\t800\tfirst-frame-1280x800-0.raw
            file\t512\t1700000000123456789\t/usr/share/splashd/themes/default/theme.toml
            absent\t/etc/splashd/theme/theme.toml

            """)
    }

    @Test func aNameOrPathTheHelperCouldNotReadBackMakesNoIndex() {
        let output = FirstFrameIndex.Output(name: "Virtual-1", width: 8, height: 8, file: "first-frame-8x8-0.raw")
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [], files: [], absent: []) == nil, "no output")
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [output], files: [.init(path: "/a\tb", size: 1, modified: 1)], absent: []) == nil)
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [output], files: [], absent: ["/a\nb"]) == nil)
        var elsewhere = output
        elsewhere.file = "../first-frame-8x8-0.raw"
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [elsewhere], files: [], absent: []) == nil, "a file outside the cache")
    }

    /// Issue 48: the helper refuses a name longer than its fields and a size outside 1…8192
    /// (it used to cut the one and wrap the other), so the renderer writes no such index.
    @Test func aNameOrSizeTheHelperRefusesMakesNoIndex() {
        let output = FirstFrameIndex.Output(name: String(repeating: "n", count: 63), width: 8192, height: 1,
                                            file: String(repeating: "f", count: 127))
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [output], files: [], absent: []) != nil, "the longest and largest it takes")
        var long = output
        long.name += "n"
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [long], files: [], absent: []) == nil, "a 64-byte output name")
        long = output
        long.file += "f"
        #expect(FirstFrameIndex.encode(arguments: 1, outputs: [long], files: [], absent: []) == nil, "a 128-byte file name")
        for (width, height) in [(8193, 1), (1, 0), (4_294_967_360, 64)] {
            let large = FirstFrameIndex.Output(name: "V", width: width, height: height, file: "f")
            #expect(FirstFrameIndex.encode(arguments: 1, outputs: [large], files: [], absent: []) == nil, "\(width)x\(height)")
        }
    }

    @Test func anOutputTakesItsSizeAndFileFromTheCacheKey() {
        let key = FirstFrameCache.Key(fingerprint: 7, width: 1280, height: 800, turn: 90)
        #expect(FirstFrameIndex.Output(name: "HDMI-A-1", key: key)
            == FirstFrameIndex.Output(name: "HDMI-A-1", width: 1280, height: 800, file: "first-frame-1280x800-90.raw"))
    }

    @Test func theArgumentsHashSeparatesArguments() {
        let hash = FirstFrameIndex.argumentsHash
        #expect(hash(["--cache-dir", "/var/cache/splashd-kms"]) != hash(["--cache-dir/var/cache/splashd-kms"]))
        #expect(hash(["--rotate", "90"]) != hash(["--rotate", "9", "0"]))
        #expect(hash([]) == FirstFrameCache.fnvOffset)
        // The word-wise FNV-1a of "a\0" (two bytes: the byte-wise tail only).
        #expect(hash(["a"]) == (((FirstFrameCache.fnvOffset ^ 0x61) &* 0x100_0000_01b3) ^ 0) &* 0x100_0000_01b3)
    }

    @Test func theHandOverIsADescriptorAndTheFramebuffersOnScreen() throws {
        let handOver = try #require(FirstFrameIndex.handOver("5 41,42"))
        #expect(handOver.descriptor == 5 && handOver.framebuffers == [41, 42])
        for bad in ["", "5", "5 ", "x 41", "1 41", "5 41,", "5 41,0", "5 41 42", "-3 41", "5 99999999999"] {
            #expect(FirstFrameIndex.handOver(bad) == nil, "\(bad)")
        }
    }
}
