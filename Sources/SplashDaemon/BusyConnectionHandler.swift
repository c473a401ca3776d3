import NIOCore
import SplashCore

/// Serves a connection over the cap: one `error` line with code `busy`, then the connection is
/// closed. No `hello`, and nothing the client sends is read.
final class BusyConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The line a client over the cap gets (with its `\n`).
    static func line(capacity: Int) -> [UInt8] {
        let error = ProtocolError(
            code: .busy, message: "splashd is serving its maximum of \(capacity) clients; try again later"
        )
        return ServerMessage.error(error).line() + [UInt8(ascii: "\n")]
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let buffer = channel.allocator.buffer(bytes: Self.line(capacity: capacity))
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
