import NIOCore
import SplashCore
import SplashJSON

/// `splashctl screenshot --web` (design §15): what the page draws, through the bridge.
///
/// An operator asks `GET /screenshot.png?token=…`; the bridge asks one page opened with its token
/// (`{"type":"screenshot","id":N}` on its WebSocket); the page draws its own DOM into a canvas and
/// sends the PNG back by `POST /screenshot/N?token=…`; the operator's request gets it. One at a
/// time (409 for another), a PNG of at most `maxScreenshotBytes`, and a page that does not answer
/// within `screenshotTimeout` ends it with 504.
extension Bridge {
    /// What an operator's screenshot came to.
    public enum ScreenshotOutcome: Sendable, Equatable {
        /// The page's PNG.
        case png([UInt8])
        /// Not taken: the HTTP status to answer with, and why.
        case refused(status: Int, reason: String)
    }

    /// How long a page has to draw itself and send its picture: less than a connection's idle
    /// timeout, so the operator's request is still there to answer.
    static let screenshotTimeout = TimeAmount.seconds(8)
    /// The largest picture a page may send.
    public static let maxScreenshotBytes = 16 * 1024 * 1024

    /// Asks a page opened with the token for a picture of itself.
    func requestScreenshot() -> EventLoopFuture<ScreenshotOutcome> {
        guard live.pendingScreenshot == nil else {
            return eventLoop.makeSucceededFuture(.refused(status: 409, reason: "another screenshot is being taken"))
        }
        guard let key = live.pages.first(where: { $0.value.grant == .control })?.key else {
            return eventLoop.makeSucceededFuture(.refused(status: 503, reason: "no page opened with the bridge's token is connected"))
        }
        let id = live.nextScreenshotID
        live.nextScreenshotID += 1
        let reply = eventLoop.makePromise(of: ScreenshotOutcome.self)
        let timeout = eventLoop.scheduleTask(in: Self.screenshotTimeout) {
            self.finishScreenshot(id, .refused(status: 504, reason: "the page sent no picture within \(Self.screenshotTimeout.nanoseconds / 1_000_000_000) s"))
        }
        live.pendingScreenshot = PendingScreenshot(id: id, page: key, reply: reply, timeout: timeout)
        send(Array(#"{"type":"screenshot","id":\#(id)}"#.utf8), to: key)
        return reply.futureResult
    }

    /// Whether screenshot `id` is asked and not answered yet.
    func awaitsScreenshot(_ id: Int64) -> Bool { live.pendingScreenshot?.id == id }

    /// The page's answer to screenshot `id`: its picture, or why it could not draw itself. False
    /// when no such screenshot is awaited (ended, or never asked).
    func screenshotArrived(id: Int64, _ outcome: ScreenshotOutcome) -> Bool {
        guard live.pendingScreenshot?.id == id else { return false }
        switch outcome {
        case .png(let bytes): logger.info("screenshot \(id): the page sent \(bytes.count) bytes of PNG")
        case .refused(_, let reason): logger.warning("screenshot \(id): \(LogEscaping.escaped(reason))")
        }
        finishScreenshot(id, outcome)
        return true
    }

    /// The page asked went away: its screenshot ends.
    func screenshotPageClosed(_ key: ObjectIdentifier) {
        guard let pending = live.pendingScreenshot, pending.page == key else { return }
        finishScreenshot(pending.id, .refused(status: 502, reason: "the page went away before it sent its picture"))
    }

    func finishScreenshot(_ id: Int64, _ outcome: ScreenshotOutcome) {
        guard let pending = live.pendingScreenshot, pending.id == id else { return }
        live.pendingScreenshot = nil
        pending.timeout.cancel()
        pending.reply.succeed(outcome)
    }
}

/// A screenshot asked of a page and not answered yet.
struct PendingScreenshot {
    var id: Int64
    var page: ObjectIdentifier
    var reply: EventLoopPromise<Bridge.ScreenshotOutcome>
    var timeout: Scheduled<Void>
}
