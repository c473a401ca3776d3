import Logging
import SplashTheme
import NIOCore
import NIOEmbedded
import NIOWebSocket
@testable import SplashWeb
import Testing

/// The bridge's side of `splashctl screenshot --web`: one page with the token is asked, one
/// screenshot at a time, and each way it can end answers the operator (the browser test takes a
/// real one: Tests/browser, test_splashctl_screenshot_of_the_page_is_what_the_browser_shows).
@Suite struct BridgeScreenshotTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]

    /// A bridge on an embedded loop and one page of `grant` on it.
    static func page(_ grant: BridgeAccess.Grant) throws -> (EmbeddedChannel, Bridge) {
        let channel = EmbeddedChannel()
        let access = BridgeAccess(host: "127.0.0.1", port: 8177, token: String(repeating: "0", count: 32), appStep: nil)
        let bridge = Bridge(eventLoop: channel.eventLoop, socketPath: "/nonexistent", access: access, logger: Logger(label: "test"))
        try channel.pipeline.syncOperations.addHandler(PageSocketHandler(bridge: bridge, grant: grant))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, bridge)
    }

    static func texts(_ channel: EmbeddedChannel) throws -> [String] {
        try BridgeBoundsTests.written(channel).filter { $0.opcode == .text }.map { String(buffer: $0.data) }
    }

    static func outcome(_ future: EventLoopFuture<Bridge.ScreenshotOutcome>, on channel: EmbeddedChannel) throws -> Bridge.ScreenshotOutcome? {
        channel.embeddedEventLoop.run()
        var result: Bridge.ScreenshotOutcome?
        future.assumeIsolated().whenSuccess { result = $0 }
        channel.embeddedEventLoop.run()
        return result
    }

    @Test func thePageWithTheTokenIsAskedAndItsPictureAnswers() throws {
        let (page, bridge) = try Self.page(.control)
        _ = try Self.texts(page)
        let asked = bridge.requestScreenshot()
        #expect(try Self.texts(page) == [#"{"type":"screenshot","id":1}"#])
        let second = try Self.outcome(bridge.requestScreenshot(), on: page)
        #expect(second == .refused(status: 409, reason: "another screenshot is being taken"))
        #expect(!bridge.screenshotArrived(id: 2, .png(Self.png)), "not the one asked")
        #expect(bridge.screenshotArrived(id: 1, .png(Self.png)))
        #expect(try Self.outcome(asked, on: page) == .png(Self.png))
        #expect(!bridge.screenshotArrived(id: 1, .png(Self.png)), "answered once")
        // The next one is asked anew.
        _ = bridge.requestScreenshot()
        #expect(try Self.texts(page) == [#"{"type":"screenshot","id":2}"#])
    }

    @Test func aPageThatDoesNotAnswerEndsItAfterTheTimeout() throws {
        let (page, bridge) = try Self.page(.control)
        let asked = bridge.requestScreenshot()
        page.embeddedEventLoop.advanceTime(by: Bridge.screenshotTimeout - .milliseconds(1))
        var result: Bridge.ScreenshotOutcome?
        asked.assumeIsolated().whenSuccess { result = $0 }
        #expect(result == nil)
        page.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(result == .refused(status: 504, reason: "the page sent no picture within 8 s"))
        #expect(!bridge.screenshotArrived(id: 1, .png(Self.png)), "too late")
    }

    @Test func aPageThatGoesAwayEndsIt() throws {
        let (page, bridge) = try Self.page(.control)
        let asked = bridge.requestScreenshot()
        try page.close().wait()
        #expect(try Self.outcome(asked, on: page) == .refused(status: 502, reason: "the page went away before it sent its picture"))
    }

    @Test func aViewerIsNeverAsked() throws {
        let (page, bridge) = try Self.page(.viewer)
        _ = try Self.texts(page)
        let asked = bridge.requestScreenshot()
        #expect(try Self.outcome(asked, on: page) == .refused(status: 503, reason: "no page opened with the bridge's token is connected"))
        #expect(try Self.texts(page).isEmpty)
    }
}

/// The screenshot's two HTTP requests through the pipeline every connection gets
/// (`WebServer.configure`): the page's `POST` is kept only for the screenshot awaited, with the
/// token, and under the size cap.
@Suite struct ScreenshotHTTPTests {
    static let token = String(repeating: "0", count: 32)
    static let site = WebSite(theme: Theme(name: "test"), resources: [:])

    /// A bridge with one control page, and an HTTP connection to it.
    static func setUp() throws -> (page: EmbeddedChannel, http: EmbeddedChannel, bridge: Bridge) {
        let (page, bridge) = try BridgeScreenshotTests.page(.control)
        let http = EmbeddedChannel()
        try WebServer.configure(http, bridge: bridge, site: site, table: ConnectionTable(capacity: 4)).wait()
        try http.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
        return (page, http, bridge)
    }

    /// The status line of what `http` answered to `request` (a head, then `body`).
    static func answer(_ http: EmbeddedChannel, _ head: String, body: [UInt8] = []) throws -> String {
        _ = try? http.writeInbound(http.allocator.buffer(bytes: Array(head.utf8) + body))
        http.embeddedEventLoop.run()
        var output: [UInt8] = []
        while let buffer = try http.readOutbound(as: ByteBuffer.self) { output += buffer.readableBytesView }
        return String(decoding: output.prefix { $0 != 0x0D }, as: UTF8.self)
    }

    static func post(_ id: Int, token: String = token, length: Int) -> String {
        "POST /screenshot/\(id)?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:8177\r\nContent-Type: image/png\r\nContent-Length: \(length)\r\n\r\n"
    }

    @Test func thePagesPictureReachesTheOperatorAndNothingElseIsKept() throws {
        let (page, http, bridge) = try Self.setUp()
        let asked = bridge.requestScreenshot()
        #expect(try Self.answer(http, Self.post(1, token: String(repeating: "1", count: 32), length: 11), body: BridgeScreenshotTests.png)
            == "HTTP/1.1 403 Forbidden")
        let other = EmbeddedChannel()
        try WebServer.configure(other, bridge: bridge, site: Self.site, table: ConnectionTable(capacity: 4)).wait()
        try other.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40001)).wait()
        #expect(try Self.answer(other, Self.post(2, length: 11), body: BridgeScreenshotTests.png) == "HTTP/1.1 404 Not Found",
                "not the screenshot awaited")
        let third = EmbeddedChannel()
        try WebServer.configure(third, bridge: bridge, site: Self.site, table: ConnectionTable(capacity: 4)).wait()
        try third.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40002)).wait()
        #expect(try Self.answer(third, Self.post(1, length: 11), body: BridgeScreenshotTests.png) == "HTTP/1.1 200 OK")
        #expect(try BridgeScreenshotTests.outcome(asked, on: page) == .png(BridgeScreenshotTests.png))
    }

    @Test func aPictureOverTheCapIsRefusedAndEndsTheScreenshot() throws {
        let (page, http, bridge) = try Self.setUp()
        let asked = bridge.requestScreenshot()
        let length = Bridge.maxScreenshotBytes + 1
        var status = try Self.answer(http, Self.post(1, length: length))
        let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
        var sent = 0
        while sent < length {
            let part = Array(chunk.prefix(length - sent))
            _ = try? http.writeInbound(http.allocator.buffer(bytes: part))
            sent += part.count
        }
        http.embeddedEventLoop.run()
        var output: [UInt8] = []
        while let buffer = try http.readOutbound(as: ByteBuffer.self) { output += buffer.readableBytesView }
        status += String(decoding: output.prefix { $0 != 0x0D }, as: UTF8.self)
        #expect(status == "HTTP/1.1 413 Payload Too Large")
        #expect(try BridgeScreenshotTests.outcome(asked, on: page) == .refused(status: 502, reason: "the page's picture is over 16 MiB"))
    }

    @Test func theOperatorNeedsTheToken() throws {
        let (_, http, _) = try Self.setUp()
        #expect(try Self.answer(http, "GET /screenshot.png?token=x HTTP/1.1\r\nHost: 127.0.0.1:8177\r\n\r\n") == "HTTP/1.1 403 Forbidden")
    }
}
