#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import SplashCore

/// psplash's FIFO (`[update] psplash_fifo = true`): its writers — SWUpdate's
/// `swupdate-progress -p`, Mender's state scripts, `psplash-write` — drive the update view
/// (`PsplashCommand` says how a command is read).
///
/// The FIFO is `$PSPLASH_FIFO_DIR/psplash_fifo`, `/run/psplash_fifo` by default. splashd makes it
/// when it is absent (mode 0600: root's writers write; the package's tmpfiles.d makes it for the
/// daemon's user), and reads one that is there only when it is a FIFO of its own user or root's
/// that only its owner may write (no group or other write bit). That is checked on the file opened
/// (never through a link), each time it is opened and before each read is obeyed; and the name is
/// watched (inotify): a FIFO re-moded or replaced while it is read is said in the journal, and a
/// new one (splashd's, 0600) takes its place when what is there is not fit. It holds the FIFO open
/// for writing too, so the reader never sees an end: writers come and go, and one that never
/// closes holds nothing up.
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

    /// The file a descriptor is open on: a FIFO put in another's place is another file.
    struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Opens the FIFO at `path` for reading (and writing, so it never ends), making it first when
    /// it is absent; a descriptor that is non-blocking and closed on exec.
    public static func open(_ path: String) throws(Refusal) -> CInt { try openChecked(path).fd }

    /// `open`, with the file the descriptor is open on.
    static func openChecked(_ path: String) throws(Refusal) -> (fd: CInt, identity: Identity) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw Refusal(description: "cannot look at \(path): \(String(cString: strerror(errno)))") }
            guard mkfifo(path, 0o600) == 0 || errno == EEXIST else {
                throw Refusal(description: "cannot make the FIFO \(path): \(String(cString: strerror(errno)))")
            }
        } else if info.st_mode & S_IFMT != S_IFIFO {
            // Not even opened: opening a device has effects of its own.
            throw Refusal(description: "\(path) is not a FIFO: not read")
        }
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
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
        return (fd, Identity(info))
    }

    /// What is wrong with a file of `mode` owned by `owner` as psplash's FIFO for a daemon running
    /// as `me`; nil when nothing is. Only its owner may write it: a group's member or anyone else
    /// who could would drive the update view without the socket's `update` grant.
    static func problem(mode: mode_t, owner: uid_t, me: uid_t) -> String? {
        guard mode & S_IFMT == S_IFIFO else { return "is not a FIFO" }
        guard owner == me || owner == 0 else { return "belongs to user \(owner), neither splashd's nor root's" }
        let octal = String(mode & 0o777, radix: 8)
        guard mode & 0o002 == 0 else { return "may be written by anyone (mode \(octal))" }
        guard mode & 0o020 == 0 else { return "may be written by its group (mode \(octal))" }
        return nil
    }

    /// What is wrong with the file open on `fd` as psplash's FIFO; nil when nothing is.
    static func problem(fd: CInt) -> String? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return "cannot be looked at (\(String(cString: strerror(errno))))" }
        return problem(mode: info.st_mode, owner: info.st_uid, me: geteuid())
    }

    /// What became of the FIFO read on `fd` (the file `identity`) at `path`.
    enum Change: Equatable {
        /// Its mode or owner changed: no longer fit to be read.
        case unfit(String)
        /// No file at the path any more.
        case removed
        /// Another file at the path.
        case replaced
    }

    /// What changed since the FIFO open on `fd` was checked; nil while it is still fit and still
    /// the file at `path`.
    static func change(at path: String, fd: CInt, identity: Identity) -> Change? {
        if let problem = problem(fd: fd) { return .unfit(problem) }
        var info = stat()
        guard lstat(path, &info) == 0 else { return .removed }
        return Identity(info) == identity ? nil : .replaced
    }

    /// Puts a new FIFO (splashd's, mode 0600) at `path` in place of what is there: made under an
    /// unpredictable name beside it, then renamed over it, so the name is never without one and
    /// no file planted beside it is taken for it.
    static func makeAgain(_ path: String) throws(Refusal) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        for _ in 0..<8 {
            let staged = "\(directory)/.psplash_fifo.\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
            guard mkfifo(staged, 0o600) == 0 else {
                if errno == EEXIST { continue }
                throw Refusal(description: String(cString: strerror(errno)))
            }
            guard rename(staged, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(staged)
                throw Refusal(description: reason)
            }
            return
        }
        throw Refusal(description: "no free name beside it")
    }

    /// What `serve` hears while it reads or waits: the name changed (inotify), or a reader found
    /// the FIFO it read no longer fit.
    enum Event: Sendable {
        case nameChanged
        case unfit(reader: Int, String)
    }

    /// Reads the FIFO at `path` on `group` until the calling task is cancelled, handing each
    /// updater word to `controller`. A FIFO that cannot be read is one log line, and is looked at
    /// again when something changes at its name.
    static func serve<C: Clock>(
        path: String, group: any EventLoopGroup, controller: LaunchController<C>, logger: Logger
    ) async where C.Duration == Duration {
        let (events, sink) = AsyncStream<Event>.makeStream()
        defer { sink.finish() }
        // Watched before the first open: no change after it goes unseen.
        let watch: (any Channel)?
        do {
            watch = try await NameWatch.start(path: path, group: group) { sink.yield(.nameChanged) }
        } catch {
            logger.warning("psplash's FIFO: \(error): a FIFO replaced or re-moded while read is not noticed until its next read")
            watch = nil
        }
        defer { watch?.close(promise: nil) }
        let log = ItemLog(logger: logger)
        var iterator = events.makeAsyncIterator()
        /// The refusal last logged (one line for each different one).
        var refused: String?
        /// Whether what is at the path now took the place of a FIFO that was read: if it is not
        /// fit, a new one takes its place.
        var afterChange = false
        var reader = 0

        /// A new FIFO in place of what is at the path; whether there is one.
        func replaceWithNew() -> Bool {
            do {
                try PsplashFIFO.makeAgain(path)
                logger.notice("psplash's FIFO \(path): made a new one (mode 600)")
                return true
            } catch {
                logger.error("psplash's FIFO \(path): cannot make a new one (\(error)): not read until one that is fit is there")
                return false
            }
        }

        while true {
            let opened: (fd: CInt, identity: Identity)
            do {
                opened = try openChecked(path)
                refused = nil
            } catch {
                if error.description != refused {
                    logger.error("psplash's FIFO: \(error); the update view follows splashctl update meanwhile")
                    refused = error.description
                }
                if afterChange {
                    afterChange = false
                    if replaceWithNew() { continue }
                }
                // Looked at again when something changes at the name (never, without a watch).
                while true {
                    guard let event = await iterator.next() else { return }
                    if case .nameChanged = event { break }
                }
                continue
            }
            reader += 1
            guard let change = await read(opened, reader: reader, path: path, group: group, events: &iterator, sink: sink, log: log, controller: controller) else {
                return
            }
            switch change {
            case .unfit(let problem):
                logger.error("psplash's FIFO \(path) \(problem): no longer read")
                if !replaceWithNew() {
                    // What is there is then refused (one line), and looked at again after a change.
                    afterChange = false
                    refused = nil
                    continue
                }
            case .removed:
                logger.warning("psplash's FIFO \(path) was removed: making a new one")
            case .replaced:
                logger.warning("psplash's FIFO \(path) was replaced: reading the file there now if it is fit, else making a new one")
            }
            afterChange = true
        }
    }

    /// Reads the FIFO `opened` until it is no longer fit or no longer at `path` (what changed); nil
    /// when the task is cancelled, or the FIFO cannot be read at all (said).
    private static func read<C: Clock>(
        _ opened: (fd: CInt, identity: Identity), reader: Int, path: String, group: any EventLoopGroup,
        events: inout AsyncStream<Event>.Iterator, sink: AsyncStream<Event>.Continuation, log: ItemLog,
        controller: LaunchController<C>
    ) async -> Change? where C.Duration == Duration {
        // A descriptor of serve's own on the same file, to look at it whatever the channel does.
        let probe = fcntl(opened.fd, F_DUPFD_CLOEXEC, 0)
        defer { if probe >= 0 { close(probe) } }
        let channel: any Channel
        do {
            channel = try await NIOPipeBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ReadHandler(descriptor: opened.fd) { item in
                            if let input = log.take(item) { controller.updater(input, from: .psplash) }
                        } unfit: { problem in
                            sink.yield(.unfit(reader: reader, problem))
                        })
                    }
                }
                .takingOwnershipOfDescriptor(input: opened.fd).get()
        } catch {
            // As before the FIFO was watched: one line, and no more reading (a retry would fail
            // the same way, and in a loop).
            log.logger.error("psplash's FIFO \(path) cannot be read: \(error); the update view follows splashctl update alone")
            return nil
        }
        defer {
            channel.close(promise: nil)
            log.flush()
        }
        log.logger.info("reading psplash's FIFO \(path): PROGRESS, MSG and QUIT drive the update view")
        // A change while the channel was made is looked at now; then each one as it comes.
        if probe >= 0, let change = change(at: path, fd: probe, identity: opened.identity) { return change }
        while let event = await events.next() {
            switch event {
            case .nameChanged:
                if probe >= 0, let change = change(at: path, fd: probe, identity: opened.identity) { return change }
            case .unfit(let from, let problem):
                if from == reader { return .unfit(problem) }
            }
        }
        return nil
    }
}
