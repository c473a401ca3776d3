#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import SplashCore
import Synchronization

/// psplash's FIFO (`[update] psplash_fifo = true`): its writers — SWUpdate's
/// `swupdate-progress -p`, Mender's state scripts, `psplash-write` — drive the update view
/// (`PsplashCommand` says how a command is read).
///
/// The FIFO is `$PSPLASH_FIFO_DIR/psplash_fifo`, `/run/psplash_fifo` by default. splashd makes it
/// when it is absent (mode 0600: root's writers write; the package's tmpfiles.d makes it for the
/// daemon's user), and reads one that is there only when it is a FIFO of its own user or root's
/// that no one else may write. It holds the FIFO open for writing too, so the reader never sees an
/// end: writers come and go, and one that never closes holds nothing up.
public enum PsplashFIFO {
    /// Why the FIFO cannot be read: said in one log line, and the daemon goes on without it.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// The FIFO's path for the daemon's `environment`.
    public static func path(environment: [String: String]) -> String {
        let directory = environment["PSPLASH_FIFO_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run"
        return directory.hasSuffix("/") ? directory + "psplash_fifo" : directory + "/psplash_fifo"
    }

    /// Opens the FIFO at `path` for reading (and writing, so it never ends), making it first when
    /// it is absent; a descriptor that is non-blocking and closed on exec.
    public static func open(_ path: String) throws(Refusal) -> CInt {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw Refusal(description: "cannot look at \(path): \(String(cString: strerror(errno)))") }
            guard mkfifo(path, 0o600) == 0 || errno == EEXIST else {
                throw Refusal(description: "cannot make the FIFO \(path): \(String(cString: strerror(errno)))")
            }
        }
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw Refusal(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        // What was opened is checked, not the name: it cannot be swapped in between.
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Refusal(description: "cannot look at \(path): \(reason)")
        }
        if let problem = problem(mode: info.st_mode, owner: info.st_uid, me: geteuid()) {
            close(fd)
            throw Refusal(description: "\(path) \(problem): not read")
        }
        return fd
    }

    /// What is wrong with a file of `mode` owned by `owner` as psplash's FIFO for a daemon running
    /// as `me`; nil when nothing is.
    static func problem(mode: mode_t, owner: uid_t, me: uid_t) -> String? {
        guard mode & S_IFMT == S_IFIFO else { return "is not a FIFO" }
        guard owner == me || owner == 0 else { return "belongs to user \(owner), neither splashd's nor root's" }
        guard mode & 0o002 == 0 else { return "may be written by anyone (mode \(String(mode & 0o777, radix: 8)))" }
        return nil
    }

    /// Reads the FIFO at `path` on `group` until the calling task is cancelled, handing each
    /// updater word to `controller`. A FIFO that cannot be read is one log line.
    static func serve<C: Clock>(
        path: String, group: any EventLoopGroup, controller: LaunchController<C>, logger: Logger
    ) async where C.Duration == Duration {
        let fd: CInt
        do {
            fd = try open(path)
        } catch {
            logger.error("psplash's FIFO: \(error); the update view follows splashctl update alone")
            return
        }
        let log = ItemLog(logger: logger)
        let channel: any Channel
        do {
            channel = try await NIOPipeBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ReadHandler { item in
                            if let input = log.take(item) { controller.updater(input, from: .psplash) }
                        })
                    }
                }
                .takingOwnershipOfDescriptor(input: fd).get()
        } catch {
            logger.error("psplash's FIFO \(path) cannot be read: \(error)")
            return
        }
        logger.info("reading psplash's FIFO \(path): PROGRESS, MSG and QUIT drive the update view")
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Splits what is read into commands, on the channel's event loop.
    final class ReadHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var reader = PsplashReader()
        private let deliver: (PsplashReader.Item) -> Void

        init(deliver: @escaping (PsplashReader.Item) -> Void) { self.deliver = deliver }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let items = buffer.readableBytesView.withContiguousStorageIfAvailable({ reader.feed($0) }) ?? reader.feed(Array(buffer.readableBytesView))
            for item in PsplashReader.coalesced(items) { deliver(item) }
        }
    }

    /// Turns what was read into updater inputs, and logs what is not one: the first few of each
    /// kind, then every thousandth (a writer sending junk does not fill the journal). A `MSG` is
    /// logged when it says something other than the one before it (SWUpdate repeats its own).
    final class ItemLog: Sendable {
        let logger: Logger
        private let counts = Mutex<[String: Int]>([:])
        private let lastMessage = Mutex<String?>(nil)

        init(logger: Logger) { self.logger = logger }

        func take(_ item: PsplashReader.Item) -> ModeMachine.UpdateInput? {
            switch item {
            case .command(.progress(let value)): logger.debug("psplash's FIFO: PROGRESS \(value)")
            case .command(.message(let text)):
                let new = lastMessage.withLock { last in
                    defer { last = text }
                    return last != text
                }
                if new { logger.info("psplash's FIFO: MSG \(text)") }
            case .command(.quit): logger.info("psplash's FIFO: QUIT")
            case .command(.ignored(let reason)): say("ignored", "psplash's FIFO: ignored \(reason)")
            case .tooLong(let bytes):
                say("too long", "psplash's FIFO: a command of \(bytes) bytes, over psplash's \(PsplashReader.maxCommandBytes): ignored")
            }
            guard case .command(let command) = item else { return nil }
            return command.updateInput
        }

        private func say(_ kind: String, _ line: String) {
            let count = counts.withLock { counts -> Int in
                counts[kind, default: 0] += 1
                return counts[kind]!
            }
            if count <= 5 || count % 1000 == 0 {
                logger.notice("\(line)\(count > 5 ? " (\(count) so far)" : "")")
            }
        }
    }
}
