import SplashLines
import NIOCore
import NIOEmbedded
import Testing

@Suite struct LineFrameDecoderTests {
    func frames(_ chunks: [String], max: Int = 16) throws -> [String] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLength: max)))
        for chunk in chunks { try channel.writeInbound(ByteBuffer(string: chunk)) }
        var out: [String] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .line(let buffer): out.append(String(buffer: buffer))
            case .tooLong: out.append("<too long>")
            }
        }
        _ = try? channel.finish()
        return out
    }

    @Test func splitsLinesAcrossReadsAndStripsCR() throws {
        #expect(try frames(["{\"a\":1}\n{\"b\"", ":2}\r\n", "\n"]) == ["{\"a\":1}", "{\"b\":2}", ""])
    }

    @Test func aLineOverTheLimitIsReportedOnceAndTheRestDropped() throws {
        #expect(try frames(["0123456789", "0123456789", "\nping\n"]) == ["<too long>"])
        #expect(try frames([String(repeating: "x", count: 40) + "\nping\n"]) == ["<too long>"])
    }

    @Test func aLineOfExactlyTheLimitPasses() throws {
        #expect(try frames([String(repeating: "x", count: 16) + "\n"]) == [String(repeating: "x", count: 16)])
    }
}
