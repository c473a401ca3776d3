public import Logging
public import NIOCore
import NIOPosix
import SplashCore
import SplashJSON
import SplashLines
import SplashProtocol

/// The hub of `splashd-web`: one connection to splashd, any number of pages.
///
/// Every state and event splashd publishes goes to every page as a WebSocket text frame, the
/// daemon's own JSON line unchanged; the latest state goes to a page as soon as it connects. A
/// page's renderer command goes to splashd under an id of the bridge's, and splashd's reply goes
/// back to that page under the page's own id. When splashd goes away (a restart, a crash) the
/// pages are told `{"type":"bridge","connected":false}`, commands in flight are answered
/// `unavailable`, and the bridge connects again by itself, with a backoff from 50 ms to 1 s; the
/// first state after that tells the pages where things are.
///
/// All of its state belongs to one event loop, and the compiler and the loop check it: what
/// changes is in a `NIOLoopBoundBox`, which traps when touched from another thread. Every method
/// runs on that loop (the channels' handlers call it from their own loop, which is the same one:
/// the bridge's group has one thread).
public final class Bridge: Sendable {
    /// The longest line accepted from splashd: a state of a large graph is long.
    static let maxDaemonLine = 16 * 1024 * 1024
    static let firstReconnectDelay = TimeAmount.milliseconds(50)
    static let lastReconnectDelay = TimeAmount.seconds(1)

    let eventLoop: any EventLoop
    public let access: BridgeAccess
    let socketPath: String
    let logger: Logger

    /// What changes, owned by `eventLoop`.
    private let state: NIOLoopBoundBox<State>

    /// The bridge's changing state; only ever touched on its event loop.
    final class State {
        var pages: [ObjectIdentifier: PageLink] = [:]
        var pendingScreenshot: PendingScreenshot?
        var nextScreenshotID: Int64 = 1
        var daemon: (any Channel)?
        var latestState: ByteBuffer?
        var waiting: [Int64: (page: ObjectIdentifier, id: JSONValue?)] = [:]
        var nextRequestID: Int64 = 1
        var reconnectDelay = Bridge.firstReconnectDelay
        var stopped = false
        var loggedDown = false
    }

    /// The state, checked to be touched on the loop alone (the box traps elsewhere).
    var live: State { state.value }

    /// A page, as the bridge knows it.
    struct PageLink {
        let channel: any Channel
        let grant: BridgeAccess.Grant
        /// A state was skipped while the page was not reading; send the latest when it can.
        var behind = false
        /// What the page may still send (`CommandBudget`).
        var budget: CommandBudget
        /// Its commands sent to splashd and not answered yet.
        var inFlight = 0
    }

    /// The most commands of one page waiting for splashd's answer; one more is answered `busy`.
    static let maxInFlight = 8
    /// The most bytes queued for a page that does not read (beyond the write buffer's high-water
    /// mark, only answers to its own commands are queued; this is the backstop): the page is closed.
    static let maxQueuedBytes = 1024 * 1024

    /// What a page's message came to.
    enum Verdict: Equatable {
        /// Answered, or sent on to splashd.
        case taken
        /// The page sent more than its budget: close it.
        case overBudget
    }

    public init(eventLoop: any EventLoop, socketPath: String, access: BridgeAccess, logger: Logger) {
        self.eventLoop = eventLoop
        self.socketPath = socketPath
        self.access = access
        self.logger = logger
        // Made anywhere (splashd-web makes it on its server's task); touched only on the loop.
        self.state = .makeBoxSendingValue(State(), eventLoop: eventLoop)
    }

    /// Starts connecting to splashd (and keeps doing so).
    public func start() {
        eventLoop.execute { self.connect() }
    }

    /// Stops reconnecting and closes the daemon connection.
    public func stop() -> EventLoopFuture<Void> {
        eventLoop.submit {
            self.live.stopped = true
            if let pending = self.live.pendingScreenshot {
                self.finishScreenshot(pending.id, .refused(status: 503, reason: "splashd-web is stopping"))
            }
            self.live.daemon?.close(promise: nil)
            self.live.daemon = nil
        }
    }

    // MARK: splashd

    private func connect() {
        guard !live.stopped, live.daemon == nil else { return }
        let path = socketPath
        ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(LineFrameDecoder(maxLength: Bridge.maxDaemonLine)),
                        DaemonLinkHandler(bridge: self),
                    ])
                }
            }
            .connect(unixDomainSocketPath: path)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    self.daemonConnected(channel)
                case .failure(let error):
                    if !self.live.loggedDown {
                        self.live.loggedDown = true
                        self.logger.warning("cannot reach splashd at \(path): \(error); trying again")
                    }
                    self.scheduleReconnect()
                }
            }
    }

    private func daemonConnected(_ channel: any Channel) {
        guard !live.stopped else {
            channel.close(promise: nil)
            return
        }
        live.daemon = channel
        live.reconnectDelay = Self.firstReconnectDelay
        if live.loggedDown { logger.notice("connected to splashd at \(socketPath)") }
        live.loggedDown = false
        send(toDaemon: Request(.subscribe, id: .number(0)).encoded())
        for key in live.pages.keys { sendBridgeStatus(to: key) }
    }

    /// The daemon connection closed: tell the pages, answer what waited, connect again.
    func daemonClosed(_ channel: any Channel) {
        guard live.daemon === channel else { return }
        live.daemon = nil
        if !live.stopped && !live.loggedDown {
            live.loggedDown = true
            logger.warning("lost splashd at \(socketPath); reconnecting")
        }
        let unanswered = live.waiting
        live.waiting = [:]
        for (_, request) in unanswered {
            let error = ProtocolError(code: .unavailable, message: "splashd went away before it answered", id: request.id)
            send(ServerMessage.error(error).line(), to: request.page)
        }
        for key in live.pages.keys { sendBridgeStatus(to: key) }
        scheduleReconnect()
    }

    private func scheduleReconnect() {
        guard !live.stopped else { return }
        let delay = live.reconnectDelay
        live.reconnectDelay = .nanoseconds(min(live.reconnectDelay.nanoseconds * 2, Self.lastReconnectDelay.nanoseconds))
        eventLoop.scheduleTask(in: delay) { self.connect() }
    }

    /// One line from splashd.
    func daemonLine(_ line: ByteBuffer) {
        guard let value = try? JSONValue.parse(line.readableBytesView), case .object(var object) = value,
            case .string(let type)? = object["type"]
        else {
            logger.warning("splashd sent a line that is not a message; ignored")
            return
        }
        switch type {
        case "state":
            live.latestState = line
            broadcast(line, isState: true)
        case "event":
            broadcast(line, isState: false)
        case "ok", "error", "result":
            guard let id = object["id"]?.int64Value, id > 0,
                let request = live.waiting.removeValue(forKey: id)
            else { return }
            live.pages[request.page]?.inFlight -= 1
            object["id"] = request.id
            if request.id == nil { object.removeValue(forKey: "id") }
            var writer = JSONWriter()
            writer.value(.object(object))
            send(writer.bytes, to: request.page)
        default:
            break
        }
    }

    private func send(toDaemon line: String) {
        guard let daemon = live.daemon else { return }
        var buffer = daemon.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        daemon.writeAndFlush(buffer, promise: nil)
    }

    // MARK: Pages

    /// A page connected over the WebSocket with `grant`.
    func pageOpened(_ channel: any Channel, grant: BridgeAccess.Grant) {
        let key = ObjectIdentifier(channel)
        guard live.pages[key] == nil else { return }
        live.pages[key] = PageLink(channel: channel, grant: grant, budget: CommandBudget(now: eventLoop.now))
        sendBridgeStatus(to: key)
        if let latestState = live.latestState { send(latestState, to: key) }
    }

    func pageClosed(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        live.pages.removeValue(forKey: key)
        live.waiting = live.waiting.filter { $0.value.page != key }
        screenshotPageClosed(key)
    }

    /// The page can take writes again: send it the state it missed.
    func pageWritable(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        guard live.pages[key]?.behind == true, let latestState = live.latestState else { return }
        live.pages[key]?.behind = false
        send(latestState, to: key)
    }

    /// One text message from a page: answered here (refused), or sent on to splashd. Every
    /// message spends the page's budget; a page over it is to be closed.
    func pageMessage(_ bytes: ByteBuffer, from channel: any Channel) -> Verdict {
        let key = ObjectIdentifier(channel)
        guard let link = live.pages[key] else { return .taken }
        // The loop's clock (an embedded loop's in tests, where time moves only when told).
        guard live.pages[key]!.budget.spend(now: eventLoop.now) else {
            logger.warning("a page sent more than \(CommandBudget.burst) commands at once or \(CommandBudget.perSecond) a second; closing it")
            return .overBudget
        }
        switch access.check(bytes.readableBytesView, grant: link.grant) {
        case .failure(let error):
            send(ServerMessage.error(error).line(), to: key)
        case .success(var request):
            guard live.daemon != nil else {
                let error = ProtocolError(code: .unavailable, message: "splashd is not connected", id: request.id)
                send(ServerMessage.error(error).line(), to: key)
                return .taken
            }
            guard link.inFlight < Self.maxInFlight else {
                let error = ProtocolError(
                    code: .busy, message: "\(Self.maxInFlight) commands of this page wait for splashd already", id: request.id
                )
                send(ServerMessage.error(error).line(), to: key)
                return .taken
            }
            let id = live.nextRequestID
            live.nextRequestID += 1
            live.waiting[id] = (key, request.id)
            live.pages[key]?.inFlight += 1
            request.id = .number(Double(id))
            send(toDaemon: request.encoded())
        }
        return .taken
    }

    private func sendBridgeStatus(to key: ObjectIdentifier) {
        guard let link = live.pages[key] else { return }
        var writer = JSONWriter()
        writer.object { w in
            w.key("type"); w.string("bridge")
            w.key("connected"); w.bool(live.daemon != nil)
            w.key("control"); w.bool(link.grant == .control)
        }
        send(writer.bytes, to: key)
    }

    /// A page that does not read is never sent more: it misses states (and gets the latest once
    /// it reads again) and events (rare: quick actions after `finished`), so its queue stays
    /// within the channel's high water mark.
    private func broadcast(_ line: ByteBuffer, isState: Bool) {
        for key in live.pages.keys {
            if let channel = live.pages[key]?.channel, !channel.isWritable {
                if isState { live.pages[key]?.behind = true }
                continue
            }
            send(line, to: key)
        }
    }

    func send(_ bytes: [UInt8], to key: ObjectIdentifier) {
        guard let channel = live.pages[key]?.channel else { return }
        send(channel.allocator.buffer(bytes: bytes), to: key)
    }

    private func send(_ buffer: ByteBuffer, to key: ObjectIdentifier) {
        guard let channel = live.pages[key]?.channel else { return }
        // The backstop: what reaches here beyond the high-water mark is answers to the page's
        // own commands, which its budget bounds; a page that let this much pile up is closed.
        if !channel.isWritable,
            let queued = try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes),
            queued > Self.maxQueuedBytes
        {
            logger.warning("a page left more than \(Self.maxQueuedBytes) bytes unread; closing it")
            live.pages.removeValue(forKey: key)
            channel.close(promise: nil)
            return
        }
        channel.writeAndFlush(WebSocketText(buffer: buffer), promise: nil)
    }
}

/// How many messages a page may send: a burst of `burst`, then `perSecond` a second (a token
/// bucket). A real page sends a few in a launch (`dismissed`, Retry, a step it completes); a
/// page over its budget floods, and is closed.
package struct CommandBudget: Equatable {
    package static let burst = 32
    package static let perSecond = 16

    private(set) var tokens: Double
    private var refilled: NIODeadline

    init(now: NIODeadline) {
        tokens = Double(Self.burst)
        refilled = now
    }

    /// Takes one message from the budget; false when none is left.
    mutating func spend(now: NIODeadline) -> Bool {
        let elapsed = Double(max(0, (now - refilled).nanoseconds)) / 1e9
        tokens = min(Double(Self.burst), tokens + elapsed * Double(Self.perSecond))
        refilled = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// A text frame's payload on its way to a page (turned into a frame by `PageSocketHandler`).
struct WebSocketText {
    var buffer: ByteBuffer
}

/// Hands splashd's lines to the bridge.
final class DaemonLinkHandler: ChannelInboundHandler {
    typealias InboundIn = LineFrame
    let bridge: Bridge

    init(bridge: Bridge) { self.bridge = bridge }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .line(let line): bridge.daemonLine(line)
        case .tooLong:
            bridge.logger.warning("splashd sent a line longer than \(Bridge.maxDaemonLine) bytes; reconnecting")
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        bridge.daemonClosed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
