public import NIOCore

/// A frame of the line protocol: one line, or the news that a line was too long.
public enum LineFrame: Sendable {
    /// One line without its `\n` (and without a trailing `\r`).
    case line(ByteBuffer)
    /// A line passed the limit; the connection is to be closed.
    case tooLong
}

/// Splits the byte stream into `\n`-terminated lines of at most `maxLength` bytes.
///
/// Never buffers more than `maxLength` + one read: a longer line yields `.tooLong` at once and
/// everything after it is dropped.
///
/// Not `LineSplitter`: a peer's overlong line ends its connection (the protocol), where a plugin's is cut and kept.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = LineFrame

    public let maxLength: Int
    private var overflowed = false
    /// Bytes already searched for `\n` in the current buffer, so long lines are scanned once.
    private var scanned = 0

    public init(maxLength: Int) { self.maxLength = maxLength }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if overflowed {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            return .needMoreData
        }
        let view = buffer.readableBytesView
        let searchStart = view.index(view.startIndex, offsetBy: min(scanned, view.count))
        guard let newline = view[searchStart...].firstIndex(of: UInt8(ascii: "\n")) else {
            scanned = view.count
            if view.count > maxLength {
                overflowed = true
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                context.fireChannelRead(wrapInboundOut(.tooLong))
            }
            return .needMoreData
        }
        scanned = 0
        let length = newline - view.startIndex
        if length > maxLength {
            overflowed = true
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            context.fireChannelRead(wrapInboundOut(.tooLong))
            return .needMoreData
        }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        context.fireChannelRead(wrapInboundOut(.line(line)))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without `\n` at EOF is still a line.
        while try decode(context: context, buffer: &buffer) == .continue {}
        if !overflowed && buffer.readableBytes > 0 {
            let line = buffer.readSlice(length: buffer.readableBytes)!
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }
}
