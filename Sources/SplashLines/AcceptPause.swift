public import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Stops a listening socket from accepting for a moment after `accept` failed for want of
/// descriptors or memory (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`), whatever consumed them.
///
/// Such a failure leaves the connection in the backlog and the socket readable. NIO's
/// `AcceptBackoffHandler` pauses only when an `accept` of the same read succeeded first: when
/// the very first one fails, the channel keeps its read pending and stays registered, and the
/// event loop calls `accept` again at once, tens of thousands of times a second (a descriptor
/// limit lowered at run time with `prlimit` reached it that way). This handler turns the
/// channel's `autoRead` off, which takes the socket out of the event loop's interest, and
/// turns it on again after `pause`. Add it to the server channel's pipeline
/// (`serverChannelInitializer`).
public final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = any Channel
    public typealias InboundOut = any Channel

    /// How long accepting stops after a failure.
    public let pause: TimeAmount
    private let onPause: (IOError) -> Void
    private var resume: Scheduled<Void>?
    /// Whether `onPause` was called since a connection was last accepted.
    private var reported = false

    /// - Parameters:
    ///   - pause: how long to stop accepting after a failure.
    ///   - onPause: called with the error when accepting stops for the first time since a
    ///     connection was last accepted (on the channel's event loop): one log line per shortage,
    ///     not one per pause.
    public init(pause: TimeAmount, onPause: @escaping (IOError) -> Void = { _ in }) {
        self.pause = pause
        self.onPause = onPause
    }

    /// Adds an `AcceptPause` to the server `channel`'s pipeline (what a `serverChannelInitializer`
    /// returns); `onPause` as for `init`.
    public static func install(
        on channel: any Channel, pause: TimeAmount, onPause: @escaping @Sendable (IOError) -> Void
    ) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(AcceptPause(pause: pause, onPause: onPause))
        }
    }

    /// Whether `error` is one that waiting can cure: out of descriptors or memory.
    public static func isResourceShortage(_ error: any Error) -> Bool {
        guard let error = error as? IOError else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
    }

    /// Whether accepting is paused now.
    public var isPaused: Bool { resume != nil }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard Self.isResourceShortage(error), let ioError = error as? IOError else {
            // Other accept errors (a connection aborted before it was accepted) concern one
            // connection only: the server goes on. NIO closes the channel itself for fatal ones.
            if !(error is IOError) { context.fireErrorCaught(error) }
            return
        }
        guard resume == nil else { return }
        if !reported {
            reported = true
            onPause(ioError)
        }
        let channel = context.channel
        channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
            self.resume = nil
            if channel.isActive {
                channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
            }
        }
    }

    /// A connection was accepted: the next shortage is reported again.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reported = false
        context.fireChannelRead(data)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
    }
}
