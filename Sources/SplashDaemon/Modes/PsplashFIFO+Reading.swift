#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import SplashCore
import SplashProtocol
import Synchronization

extension PsplashFIFO {
    /// Splits what is read into commands, on the channel's event loop; each read is obeyed only
    /// while the FIFO is still fit (its mode and owner looked at on the descriptor first).
    final class ReadHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var reader = PsplashReader()
        /// The channel's descriptor: open for as long as reads come.
        private let descriptor: CInt
        private let deliver: (PsplashReader.Item) -> Void
        private let unfit: (String) -> Void

        init(descriptor: CInt, deliver: @escaping (PsplashReader.Item) -> Void, unfit: @escaping (String) -> Void) {
            self.descriptor = descriptor
            self.deliver = deliver
            self.unfit = unfit
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // A FIFO re-moded since it was opened (its name's watch may not have told yet): what
            // anyone wrote into it is not obeyed.
            if let problem = PsplashFIFO.problem(fd: descriptor) {
                unfit(problem)
                context.close(promise: nil)
                return
            }
            let buffer = unwrapInboundIn(data)
            let items = buffer.readableBytesView.withContiguousStorageIfAvailable({ reader.feed($0) }) ?? reader.feed(Array(buffer.readableBytesView))
            for item in PsplashReader.coalesced(items) { deliver(item) }
        }
    }

    /// Turns what was read into updater inputs, and logs them within bounds (`FoldedLog`: the
    /// first five of a minute, then how many were not): `MSG`s, `PROGRESS`es, and what is
    /// ignored. A writer flooding the FIFO with distinct `MSG`s (1,000,000 were 184,000 lines in
    /// 8 s) would otherwise make journald drop splashd's other records. A `MSG` is logged when it
    /// says something other than the one before it (SWUpdate repeats its own); `QUIT` always,
    /// with how many lines were not logged before it.
    final class ItemLog: Sendable {
        let logger: Logger
        private let lastMessage = Mutex<String?>(nil)
        private let messages: FoldedLog
        private let progress: FoldedLog
        private let ignored: FoldedLog

        init(logger: Logger) {
            self.logger = logger
            messages = FoldedLog(logger: logger, prefix: "psplash's FIFO: ", what: "MSG lines")
            progress = FoldedLog(logger: logger, prefix: "psplash's FIFO: ", what: "PROGRESS lines")
            ignored = FoldedLog(logger: logger, prefix: "psplash's FIFO: ", what: "lines of ignored commands")
        }

        func take(_ item: PsplashReader.Item) -> ModeMachine.UpdateInput? {
            switch item {
            case .command(.progress(let value)): progress.log(.debug, "PROGRESS \(value)")
            case .command(.message(let text)):
                let new = lastMessage.withLock { last in
                    defer { last = text }
                    return last != text
                }
                if new { messages.log(.info, "MSG \(text)") }
            case .command(.quit):
                flush()
                logger.info("psplash's FIFO: QUIT")
            case .command(.ignored(let reason)): ignored.log(.notice, "ignored \(reason)")
            case .tooLong(let bytes):
                ignored.log(.notice, "a command of \(bytes) bytes, over psplash's \(PsplashReader.maxCommandBytes): ignored")
            }
            guard case .command(let command) = item else { return nil }
            return command.updateInput
        }

        /// Tells how many lines were not logged, if any: at a `QUIT`, and when the FIFO is no
        /// longer read.
        func flush() {
            messages.flush()
            progress.flush()
            ignored.flush()
        }
    }

    /// Changes at the FIFO's name, from inotify on its directory: a file made, removed, renamed
    /// over or away, or its mode or owner changed (`IN_ATTRIB`, which a directory's watch hears
    /// for the files in it); and the directory's own end. Each is a call of `changed`, on the
    /// channel's event loop; what it means is looked at by the caller.
    enum NameWatch {
        static func start(path: String, group: any EventLoopGroup, changed: @escaping @Sendable () -> Void) async throws(Refusal) -> any Channel {
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            let name = Array((slash.map { String(path[path.index(after: $0)...]) } ?? path).utf8)
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { throw Refusal(description: "cannot watch \(directory): \(String(cString: strerror(errno)))") }
            let mask = IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
            guard inotify_add_watch(fd, directory, UInt32(mask)) >= 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw Refusal(description: "cannot watch \(directory): \(reason)")
            }
            do {
                return try await NIOPipeBootstrap(group: group)
                    // Room for a whole event with the longest name: a read never splits one.
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 4096))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(EventHandler(name: name, changed: changed))
                        }
                    }
                    .takingOwnershipOfDescriptor(input: fd).get()
            } catch {
                throw Refusal(description: "cannot watch \(directory): \(error)")
            }
        }

        /// Reads inotify's events (`struct inotify_event`: wd, mask, cookie, len, then `len`
        /// bytes of name padded with NULs) and tells those of the name, or of no name.
        final class EventHandler: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            private let name: [UInt8]
            private let changed: @Sendable () -> Void

            init(name: [UInt8], changed: @escaping @Sendable () -> Void) {
                self.name = name
                self.changed = changed
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                var buffer = unwrapInboundIn(data)
                var relevant = false
                while buffer.readableBytes >= 16 {
                    // wd, mask and cookie, then the name's length, in this machine's order.
                    buffer.moveReaderIndex(forwardBy: 12)
                    guard let length = buffer.readInteger(endianness: .host, as: UInt32.self),
                        let field = buffer.readBytes(length: Int(length))
                    else { break }
                    let eventName = field.prefix { $0 != 0 }
                    if eventName.isEmpty || eventName.elementsEqual(name) { relevant = true }
                }
                if relevant { changed() }
            }
        }
    }
}
