import NIOCore
import NIOWebSocket

/// One page's WebSocket: text frames to and from the bridge, pings answered, the rest closed.
///
/// A page sends one command per text frame (at most 16 KiB, the upgrader's frame limit); binary
/// and fragmented messages are refused by closing the connection with a protocol error, and so
/// is a frame RFC 6455 forbids a client to send: an unmasked one (§5.1) or one with a reserved
/// bit set (§5.2: no extension is negotiated).
///
/// What a page that does not read can make the bridge queue is bounded: nothing more is read
/// from it while its connection is over the write buffer's high-water mark, a ping is answered
/// by only the latest pong while it is (RFC 6455 §5.5.3 allows that), and its commands go
/// through the bridge's per-page budget (`Bridge.pageMessage`), which closes a page that floods.
final class PageSocketHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketText
    typealias OutboundOut = WebSocketFrame

    let bridge: Bridge
    let grant: BridgeAccess.Grant
    private var closing = false
    /// A read was asked for while the page could not take writes: done once it can.
    private var readDeferred = false
    /// The payload of the latest ping not answered yet because the page could not take writes.
    private var pendingPong: ByteBuffer?

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
        if context.channel.isWritable && !closing {
            if let pong = pendingPong {
                pendingPong = nil
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: pong)), promise: nil)
            }
            bridge.pageWritable(context.channel)
            if readDeferred {
                readDeferred = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Reads only while the page can take what the bridge answers.
    func read(context: ChannelHandlerContext) {
        guard context.channel.isWritable else {
            readDeferred = true
            return
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let text = unwrapOutboundIn(data)
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: text.buffer)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let frame = unwrapInboundIn(data)
        guard frame.maskKey != nil, !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            return close(context: context, code: .protocolError)
        }
        switch frame.opcode {
        case .text where frame.fin:
            switch bridge.pageMessage(frame.unmaskedData, from: context.channel) {
            case .taken: break
            case .overBudget: close(context: context, code: .policyViolation)
            }
        case .ping:
            let payload = frame.unmaskedData
            if context.channel.isWritable {
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
            } else {
                pendingPong = payload
            }
        case .pong:
            break
        case .connectionClose:
            close(context: context, code: .normalClosure)
        default:
            close(context: context, code: .unacceptableData)
        }
    }

    /// The frame decoder's errors (the upgrader leaves them to this handler, so that a connection
    /// gets one close frame, not NIO's and this handler's).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let tooLarge = (error as? NIOWebSocketError) == .invalidFrameLength
        close(context: context, code: tooLarge ? .messageTooLarge : .protocolError)
    }

    private func close(context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !closing else { return }
        closing = true
        // Nothing after the close frame: the bridge forgets the page now.
        bridge.pageClosed(context.channel)
        pendingPong = nil
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        // A page that does not read never lets the close frame out: closed anyway.
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeGrace) { context.close(promise: nil) }
    }

    /// How long a closing connection may take to let its close frame out.
    static let closeGrace = TimeAmount.seconds(2)
}
