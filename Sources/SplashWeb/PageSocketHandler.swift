import NIOCore
import NIOWebSocket

/// One page's WebSocket: text frames to and from the bridge, pings answered, the rest closed.
///
/// A page sends one command per text frame (at most 16 KiB, the upgrader's frame limit); binary
/// and fragmented messages are refused by closing the connection with a protocol error.
final class PageSocketHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketText
    typealias OutboundOut = WebSocketFrame

    let bridge: Bridge
    let grant: BridgeAccess.Grant
    private var closing = false

    init(bridge: Bridge, grant: BridgeAccess.Grant) {
        self.bridge = bridge
        self.grant = grant
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { bridge.pageOpened(context.channel, grant: grant) }
    }

    func channelActive(context: ChannelHandlerContext) {
        bridge.pageOpened(context.channel, grant: grant)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        bridge.pageClosed(context.channel)
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { bridge.pageWritable(context.channel) }
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let text = unwrapOutboundIn(data)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: text.buffer)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text where frame.fin:
            bridge.pageMessage(frame.unmaskedData, from: context.channel)
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pong:
            break
        case .connectionClose:
            close(context: context, code: .normalClosure)
        default:
            close(context: context, code: .unacceptableData)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        close(context: context, code: .protocolError)
    }

    private func close(context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !closing else { return }
        closing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
