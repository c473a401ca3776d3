import Logging
import SplashCore
import SplashJSON
import SplashPlugins
import Synchronization
import SplashSupport

/// What the `quick-action` plugin remembers between attempts and launches.
///
/// - Spool files that were read but could not be removed, so they are not taken again at every
///   launch. Kept in memory and, best effort, in a small JSON file in the state directory
///   (`quick-action-spool.json`), so a restart does not take them again either. An entry is
///   forgotten once its file is gone or changed.
/// - The inputs taken during the current launch, so an attempt that is abandoned after taking
///   them (a timeout, then a retry) loses nothing: the next attempt of the same launch sees
///   them again.
final class QuickActionLedger: Sendable {
    /// Inputs taken by earlier attempts of one launch.
    struct Taken: Sendable {
        var launch: String
        var spool: [QuickActionSpool.Entry] = []
        var commands: [QuickInput] = []
    }

    private struct State {
        var ignored: Set<QuickActionSpool.FileIdentity>?
        var taken: Taken?
    }

    /// The file keeping the identities of spool files that could not be removed.
    let path: String
    private let state = Mutex(State())

    init(path: String) {
        self.path = path
    }

    /// The spool files not to take again, without those that are gone or changed.
    func ignored(logger: Logger) -> Set<QuickActionSpool.FileIdentity> {
        let known = state.withLock { $0.ignored } ?? load(logger: logger)
        let current = known.filter { QuickActionSpool.identity(of: $0.path) == $0 }
        store(current, logger: logger, persist: current != known)
        return current
    }

    /// Adds spool files that could not be removed.
    func ignore(_ identities: [QuickActionSpool.FileIdentity], logger: Logger) {
        guard !identities.isEmpty else { return }
        let updated = (state.withLock { $0.ignored } ?? []).union(identities)
        store(updated, logger: logger, persist: true)
    }

    /// Adds `spool` and `commands` to what launch `launch` has taken; returns all of it.
    ///
    /// What an earlier launch took is forgotten.
    func take(launch: String, spool: [QuickActionSpool.Entry], commands: [QuickInput]) -> Taken {
        state.withLock { state in
            var taken = state.taken?.launch == launch ? state.taken! : Taken(launch: launch)
            taken.spool.append(contentsOf: spool)
            taken.commands.append(contentsOf: commands)
            state.taken = taken
            return taken
        }
    }

    private func store(_ identities: Set<QuickActionSpool.FileIdentity>, logger: Logger, persist: Bool) {
        state.withLock { $0.ignored = identities }
        guard persist else { return }
        var writer = JSONWriter()
        writer.array { list in
            for identity in identities.sorted(by: { $0.path < $1.path }) {
                list.object { w in
                    w.key("path")
                    w.string(identity.path)
                    w.key("inode")
                    w.number(Double(identity.inode))
                    w.key("size")
                    w.int(identity.size)
                    w.key("mtime_s")
                    w.int(identity.modifiedSeconds)
                    w.key("mtime_ns")
                    w.int(identity.modifiedNanoseconds)
                }
            }
        }
        do {
            try AtomicFile.write(writer.bytes + [0x0A], to: path)
        } catch {
            logger.warning("cannot remember unremovable spool files across restarts: \(error)")
        }
    }

    private func load(logger: Logger) -> Set<QuickActionSpool.FileIdentity> {
        guard let bytes = AtomicFile.read(path, limit: 1 << 20) else { return [] }
        guard case .array(let items)? = try? JSONReader.value(of: bytes) else {
            logger.warning("ignoring an unreadable list of unremovable spool files", metadata: ["file": "\(path)"])
            return []
        }
        var result: Set<QuickActionSpool.FileIdentity> = []
        for item in items {
            guard let object = item.objectValue, let path = object["path"]?.stringValue,
                let inode = object["inode"]?.numberValue.flatMap({ UInt64(exactly: $0) }),
                let size = object["size"]?.numberValue.flatMap({ Int64(exactly: $0) }),
                let seconds = object["mtime_s"]?.numberValue.flatMap({ Int64(exactly: $0) }),
                let nanoseconds = object["mtime_ns"]?.numberValue.flatMap({ Int64(exactly: $0) })
            else { continue }
            result.insert(
                QuickActionSpool.FileIdentity(
                    path: path, inode: inode, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds
                )
            )
        }
        return result
    }
}
