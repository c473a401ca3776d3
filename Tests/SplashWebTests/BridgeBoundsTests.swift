import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
@testable import SplashWeb
import Testing

/// The bounds that keep a hostile local client from growing the bridge or locking the page out
/// (issue 22): the per-page command budget, the connection table, RFC 6455's framing rules.
@Suite struct BridgeBoundsTests {
    @Test func aPageMaySendABurstThenItsRate() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var budget = CommandBudget(now: start)
        for _ in 0..<CommandBudget.burst { let spent = budget.spend(now: start); #expect(spent) }
        let over = budget.spend(now: start)
        #expect(!over, "over the burst")
        // A second later, a second's worth.
        let later = start + .seconds(1)
        for _ in 0..<CommandBudget.perSecond { let spent = budget.spend(now: later); #expect(spent) }
        let overAgain = budget.spend(now: later)
        #expect(!overAgain)
        // Never more than the burst, however long the page was quiet.
        let much = later + .hours(1)
        for _ in 0..<CommandBudget.burst { let spent = budget.spend(now: much); #expect(spent) }
        let overAfterRest = budget.spend(now: much)
        #expect(!overAfterRest)
    }

    @Test func aNewcomerTakesTheOldestUnprotectedPlace() throws {
        let table = ConnectionTable(capacity: 2)
        let channels = (0..<4).map { _ in EmbeddedChannel() }
        for channel in channels { try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait() }
        let (first, second, third, fourth) = (channels[0], channels[1], channels[2], channels[3])
        #expect(table.admit(first) && table.admit(second))
        table.protect(second)
        #expect(table.admit(third), "the oldest unprotected one makes room")
        #expect(!first.isActive, "pushed out")
        #expect(table.count == 2 && table.evictions == 1)
        table.protect(third)
        #expect(!table.admit(fourth), "every place is a control page's: busy")
        #expect(second.isActive && third.isActive)
        try third.close().wait()
        third.embeddedEventLoop.run()
        #expect(table.count == 1)
        #expect(table.admit(fourth))
    }

    @Test func theCapLeavesTheBridgeItsReserve() {
        #expect(ConnectionTable.capacity(descriptorLimit: 1024) == ConnectionTable.defaultCapacity)
        #expect(ConnectionTable.capacity(descriptorLimit: 64) == 64 - ConnectionTable.reserve)
        #expect(ConnectionTable.capacity(descriptorLimit: 10) == 1)
    }

    @Test func theBusyAnswerIsAWholeResponse() {
        let response = BusyHTTP.response(capacity: 64)
        #expect(response.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        let parts = response.split(separator: "\r\n\r\n", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 2 && parts[0].contains("Content-Length: \(parts[1].utf8.count)\r\n"))
        #expect(parts[1].contains("maximum of 64 connections"))
    }

    /// A page's socket in an embedded channel: the bridge behind it never connects.
    static func page() throws -> (EmbeddedChannel, Bridge) {
        let channel = EmbeddedChannel()
        let access = BridgeAccess(host: "127.0.0.1", port: 8177, token: String(repeating: "0", count: 32), appStep: nil)
        let bridge = Bridge(eventLoop: channel.eventLoop, socketPath: "/nonexistent", access: access, logger: Logger(label: "test"))
        try channel.pipeline.syncOperations.addHandler(PageSocketHandler(bridge: bridge, grant: .viewer))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, bridge)
    }

    /// The frames the handler wrote, after the bridge's own `bridge` status.
    static func written(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    static func text(_ string: String, masked: Bool = true, rsv1: Bool = false) -> WebSocketFrame {
        var buffer = ByteBuffer(string: string)
        let key: WebSocketMaskingKey? = masked ? [1, 2, 3, 4] : nil
        if let key { buffer.webSocketMask(key) }
        return WebSocketFrame(fin: true, rsv1: rsv1, opcode: .text, maskKey: key, data: buffer)
    }

    @Test(arguments: [(true, false), (false, true)])
    func aFrameRFC6455ForbidsFailsTheConnection(unmasked: Bool, rsv1: Bool) throws {
        let (channel, _) = try Self.page()
        _ = try Self.written(channel)
        try channel.writeInbound(Self.text(#"{"cmd":"ping"}"#, masked: !unmasked, rsv1: rsv1))
        let frames = try Self.written(channel)
        #expect(frames.count == 1 && frames.first?.opcode == .connectionClose)
        var data = frames.first?.data ?? ByteBuffer()
        let code = data.readWebSocketErrorCode()
        #expect(code == .protocolError)
        #expect(!channel.isActive)
    }

    @Test func aMaskedTextFrameIsAnswered() throws {
        let (channel, _) = try Self.page()
        _ = try Self.written(channel)
        try channel.writeInbound(Self.text(#"{"cmd":"retry","id":1}"#))
        let frames = try Self.written(channel)
        #expect(frames.map(\.opcode) == [.text])
        let answer = String(buffer: frames.first?.data ?? ByteBuffer())
        #expect(answer.contains("permission-denied"))
        #expect(channel.isActive)
    }

    @Test func aPageOverItsBudgetIsClosedAsAPolicyViolation() throws {
        let (channel, _) = try Self.page()
        _ = try Self.written(channel)
        for _ in 0..<CommandBudget.burst { try channel.writeInbound(Self.text(#"{"cmd":"retry"}"#)) }
        #expect(try Self.written(channel).count == CommandBudget.burst, "each answered")
        try channel.writeInbound(Self.text(#"{"cmd":"retry"}"#))
        let frames = try Self.written(channel)
        #expect(frames.map(\.opcode) == [.connectionClose])
        var data = frames.first?.data ?? ByteBuffer()
        let code = data.readWebSocketErrorCode()
        #expect(code == .policyViolation)
    }

    /// The budget refills on the bridge's loop's clock: a page that spent its burst may send one
    /// more message once 1/16 s has passed, and not before. (On the real clock, a slow run had
    /// refilled a token during the burst, and the page over its budget was answered.)
    @Test func theBudgetRefillsAsTheLoopsClockPasses() throws {
        let (channel, _) = try Self.page()
        _ = try Self.written(channel)
        for _ in 0..<CommandBudget.burst { try channel.writeInbound(Self.text(#"{"cmd":"retry"}"#)) }
        #expect(try Self.written(channel).count == CommandBudget.burst)
        channel.embeddedEventLoop.advanceTime(by: .nanoseconds(1_000_000_000 / Int64(CommandBudget.perSecond)))
        try channel.writeInbound(Self.text(#"{"cmd":"retry"}"#))
        #expect(try Self.written(channel).map(\.opcode) == [.text], "one more, answered")
        try channel.writeInbound(Self.text(#"{"cmd":"retry"}"#))
        #expect(try Self.written(channel).map(\.opcode) == [.connectionClose], "and no more")
    }
}
