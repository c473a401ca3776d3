import SplashLines
import Logging
import NIOCore
import SplashCore
import SplashJSON
import SplashProtocol

/// Serves one client connection: hello, request/reply, subscriptions.
///
/// Everything runs on the connection's event loop. Requests are handled one at a time, in order.
/// A client that does not read can neither block the daemon nor grow its memory: while the
/// connection is not writable no further request is handled (and reading stops once a few are
/// queued), and subscription states are coalesced to the latest one.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = LineFrame
    typealias OutboundOut = ByteBuffer

    /// Queued requests before the handler stops reading from the socket.
    static let maxQueuedLines = 32
    /// Events kept for a subscriber that is not reading, before the oldest are dropped.
    static let maxPendingEvents = 64

    private let commands: any CommandHandler
    private let broadcaster: StateBroadcaster
    private let access: AccessPolicy
    private let logger: Logger
    private var context: ChannelHandlerContext?
    /// The peer's credentials, taken at accept (nil: the socket could not tell, and the peer may
    /// only watch).
    private let peer: PeerCredentials?
    private var mayControl: Bool?
    private var queue = CircularBuffer<LineFrame>()
    private var busy = false
    private var closing = false
    private var readingPaused = false
    private var subscriber: ConnectionSubscriber?
    /// Whether the subscriber takes the states published only because time passed
    /// (`{"cmd":"subscribe","ticks":false}` says no).
    private var ticks = true
    /// For a subscriber without ticks: the last state it was sent, without its clocks.
    private var lastTimeless: StateMessage?
    private var lastSeq: UInt64 = 0
    private var pendingState: StateLine?
    /// An update's end the client could not be sent yet, kept when a newer state took
    /// `pendingState`'s place: a subscriber that does not keep up still sees "Restarting…" or the
    /// update's error before what came after (design §15). At most one: the newest end.
    private var pendingEnd: StateLine?
    private var pendingEvents = CircularBuffer<ByteBuffer>()

    init(commands: any CommandHandler, broadcaster: StateBroadcaster, access: AccessPolicy, peer: PeerCredentials?, logger: Logger) {
        self.commands = commands
        self.broadcaster = broadcaster
        self.access = access
        self.peer = peer
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        unsubscribe()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        write(.hello(protocol: protocolVersion, version: splashdVersion))
        context.flush()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        unsubscribe()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        queue.append(unwrapInboundIn(data))
        drain()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            flushPending()
            drain()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client connection error: \(error)")
        context.close(promise: nil)
    }

    // MARK: Requests

    /// Handles queued requests while the connection can take the replies.
    private func drain() {
        guard let context else { return }
        while !busy && !closing && context.channel.isWritable, let frame = queue.popFirst() {
            switch frame {
            case .tooLong:
                closing = true
                write(.error(ProtocolError(code: .lineTooLong, message: "line longer than \(SocketDefaults.maxLineBytes) bytes; closing")))
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0))).whenComplete { _ in
                    channel.close(promise: nil)
                }
                queue.removeAll()
            case .line(let line):
                handle(line)
            }
        }
        context.flush()
        let shouldPause = queue.count >= Self.maxQueuedLines
        if shouldPause != readingPaused {
            readingPaused = shouldPause
            context.channel.setOption(ChannelOptions.autoRead, value: !shouldPause).whenFailure { _ in }
        }
    }

    private func handle(_ line: ByteBuffer) {
        let bytes = line.readableBytesView
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        let request: Request
        switch Request.parse(bytes) {
        case .failure(let error):
            write(.error(error))
            return
        case .success(let parsed):
            request = parsed
        }
        if request.command.needsControl && !peerMayControl() {
            write(
                .error(
                    ProtocolError(
                        code: .permissionDenied,
                        message: "\(request.command.name) needs root, the daemon's user or the control group",
                        id: request.id
                    )
                )
            )
            return
        }
        switch request.command {
        case .ping:
            write(.ok(id: request.id))
        case .state:
            if var state = broadcaster.latest?.message {
                state.id = request.id
                write(.state(state))
            } else {
                write(.error(ProtocolError(code: .unavailable, message: "no launch has started yet", id: request.id)))
            }
        case .subscribe, .subscribeWithoutTicks:
            write(.ok(id: request.id))
            ticks = request.command == .subscribe
            subscribe()
        case .report(let report):
            busy = true
            let loop = context!.eventLoop
            let loopBound = NIOLoopBound(self, eventLoop: loop)
            let commands = self.commands
            Task {
                let result = await commands.report(report)
                loop.execute { loopBound.value.reported(request, report, result) }
            }
        default:
            busy = true
            let loop = context!.eventLoop
            let loopBound = NIOLoopBound(self, eventLoop: loop)
            let commands = self.commands
            let sender = peer?.pid
            Task {
                let result = await commands.handle(request.command, from: sender)
                loop.execute { loopBound.value.finished(request, result) }
            }
        }
    }

    private func finished(_ request: Request, _ result: Result<Void, ProtocolError>) {
        busy = false
        guard !closing else { return }
        switch result {
        case .success: write(.ok(id: request.id))
        case .failure(var error):
            error.id = request.id
            write(.error(error))
        }
        drain()
    }

    private func reported(_ request: Request, _ report: Report, _ result: Result<(data: JSONValue, text: String?), ProtocolError>) {
        busy = false
        guard !closing else { return }
        switch result {
        case .success(let answer):
            write(.result(id: request.id, command: report.rawValue, data: answer.data, text: answer.text))
        case .failure(var error):
            error.id = request.id
            write(.error(error))
        }
        drain()
    }

    private func peerMayControl() -> Bool {
        if let mayControl { return mayControl }
        let allowed = access.allowsControl(peer)
        mayControl = allowed
        return allowed
    }

    private func write(_ message: ServerMessage) {
        guard let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: 128)
        buffer.writeBytes(message.line())
        buffer.writeInteger(UInt8(ascii: "\n"))
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    // MARK: Subscription

    private func subscribe() {
        guard let context else { return }
        if subscriber != nil {
            // Subscribed already: the current state again, at once, as for a first subscribe.
            if let latest = broadcaster.latest, latest.seq >= lastSeq {
                lastSeq = latest.seq
                pendingState = nil
                pendingEnd = nil
                lastTimeless = ticks ? nil : latest.message.withoutClocks
                context.write(wrapOutboundOut(latest.bytes), promise: nil)
            }
            return
        }
        let subscriber = ConnectionSubscriber(handler: NIOLoopBound(self, eventLoop: context.eventLoop), eventLoop: context.eventLoop)
        self.subscriber = subscriber
        if let latest = broadcaster.subscribe(subscriber) { offer(latest) }
    }

    private func unsubscribe() {
        if let subscriber { broadcaster.unsubscribe(subscriber) }
        subscriber = nil
    }

    /// Writes `state` now if the client keeps up, else keeps it as the one pending state (and an
    /// update's end it replaces as `pendingEnd`). A subscriber without ticks is not sent a state
    /// that differs from the last one it was sent only in what time moves.
    func offer(_ state: StateLine) {
        guard let context, !closing, state.seq > lastSeq else { return }
        let timeless = ticks ? nil : state.message.withoutClocks
        if let timeless, timeless == lastTimeless { return }
        if context.channel.isWritable {
            pendingState = nil
            lastSeq = state.seq
            if let timeless { lastTimeless = timeless }
            context.writeAndFlush(wrapOutboundOut(state.bytes), promise: nil)
        } else {
            if let replaced = pendingState, let end = Self.updateEnd(replaced), end != Self.updateEnd(state) {
                pendingEnd = replaced
            }
            pendingState = state
        }
    }

    /// The update's end `state` shows, if it shows one.
    private static func updateEnd(_ state: StateLine) -> UpdateStatus? {
        guard let update = state.message.update, update.result != .running else { return nil }
        return update
    }

    func offer(event: ByteBuffer) {
        guard let context, !closing else { return }
        if context.channel.isWritable && pendingEvents.isEmpty {
            context.writeAndFlush(wrapOutboundOut(event), promise: nil)
        } else {
            if pendingEvents.count >= Self.maxPendingEvents {
                _ = pendingEvents.popFirst()
                logger.warning("a subscriber is not reading; dropped its oldest pending event")
            }
            pendingEvents.append(event)
        }
    }

    private func flushPending() {
        guard let context else { return }
        while context.channel.isWritable, let event = pendingEvents.popFirst() {
            context.write(wrapOutboundOut(event), promise: nil)
        }
        if context.channel.isWritable, let end = pendingEnd {
            pendingEnd = nil
            let newer = pendingState
            offer(end)
            if let newer { offer(newer) }
        } else if let pendingState {
            offer(pendingState)
        }
        context.flush()
    }
}

/// Hands published states to a connection on its own event loop.
final class ConnectionSubscriber: StateSubscriber {
    private let handler: NIOLoopBound<ConnectionHandler>
    private let eventLoop: any EventLoop

    init(handler: NIOLoopBound<ConnectionHandler>, eventLoop: any EventLoop) {
        self.handler = handler
        self.eventLoop = eventLoop
    }

    func deliver(state: StateLine) {
        eventLoop.execute { self.handler.value.offer(state) }
    }

    func deliver(event: ByteBuffer) {
        eventLoop.execute { self.handler.value.offer(event: event) }
    }
}
