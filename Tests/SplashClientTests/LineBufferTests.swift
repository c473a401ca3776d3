@testable import SplashClient
import Testing

/// The bounded line splitter under the connection.
@Suite struct LineBufferTests {
    @Test func splitsLinesAcrossChunks() throws {
        var buffer = LineBuffer(maxLineBytes: 16)
        buffer.append(Array("ab".utf8))
        #expect(try buffer.nextLine() == nil)
        buffer.append(Array("c\nde\n\nf".utf8))
        #expect(try buffer.nextLine() == Array("abc".utf8))
        #expect(try buffer.nextLine() == Array("de".utf8))
        #expect(try buffer.nextLine() == [])
        #expect(try buffer.nextLine() == nil)
        #expect(buffer.pendingCount == 1)
        buffer.append(Array("g\n".utf8))
        #expect(try buffer.nextLine() == Array("fg".utf8))
        #expect(buffer.pendingCount == 0)
    }

    @Test func refusesLinesOverTheLimitWithOrWithoutNewline() throws {
        var exact = LineBuffer(maxLineBytes: 4)
        exact.append(Array("1234\n".utf8))
        #expect(try exact.nextLine() == Array("1234".utf8))

        var terminated = LineBuffer(maxLineBytes: 4)
        terminated.append(Array("12345\n".utf8))
        #expect(throws: ClientError.invalidMessage("a line longer than 4 bytes, the protocol's bound (the line cannot be read, and the connection ends)")) { try terminated.nextLine() }

        var open = LineBuffer(maxLineBytes: 4)
        open.append(Array("1234".utf8))
        #expect(try open.nextLine() == nil)
        open.append(Array("5".utf8))
        #expect(throws: ClientError.invalidMessage("a line longer than 4 bytes, the protocol's bound (the line cannot be read, and the connection ends)")) { try open.nextLine() }
    }
}
