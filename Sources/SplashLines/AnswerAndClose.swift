public import NIOCore

/// Serves a connection that will not be served: writes `answer` once it is active, then closes
/// it. Nothing the client sends is read. The daemon's socket answers a client over its cap with a
/// `busy` line this way, and `splashd-web` a connection over its cap with a 503.
public final class AnswerAndClose: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private let answer: [UInt8]

    public init(_ answer: [UInt8]) {
        self.answer = answer
    }

    public func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: answer))).whenComplete { _ in
            channel.close(promise: nil)
        }
        context.fireChannelActive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
