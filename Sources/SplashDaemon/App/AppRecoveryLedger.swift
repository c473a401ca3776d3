import SplashJSON
import SplashSupport

#if canImport(Glibc)
import Glibc
#endif

/// The app's recent recoveries and whether it is held in a crash loop, kept in the state
/// directory (`app-recoveries.json`) so that a restart of splashd neither forgets the count nor
/// leaves `app-crash-loop` (design §14). An app whose crashes take splashd down too is held all the
/// same.
///
/// Written whole and atomically (aside, fsynced, renamed) at each recovery, crash loop and Retry
/// of one: a power cut leaves the file before or after, never a torn one. Times are wall-clock
/// milliseconds (the daemon's own clock starts again with it). A file that cannot be read, or
/// that is about another unit, counts as none.
public struct AppRecoveryLedger: Sendable {
    /// What the file holds.
    public struct Entry: Sendable, Equatable, Codable {
        /// The unit the count is about (`[app] unit`).
        public var unit: String
        /// When recent recoveries began, in Unix milliseconds, oldest first.
        public var recoveries: [Int64]
        /// Held in `app-crash-loop` until Retry.
        public var crashLoop: Bool

        public init(unit: String, recoveries: [Int64] = [], crashLoop: Bool = false) {
            self.unit = unit
            self.recoveries = recoveries
            self.crashLoop = crashLoop
        }

        enum CodingKeys: String, CodingKey {
            case unit, recoveries
            case crashLoop = "crash_loop"
        }
    }

    public let path: String
    /// Now, in Unix milliseconds.
    let wallClockMs: @Sendable () -> Int64

    /// Most recoveries kept (more than any `max_restarts` needs).
    static let capacity = 1000

    public init(stateDirectory: String, wallClockMs: @escaping @Sendable () -> Int64 = AppRecoveryLedger.realtimeMs) {
        path = "\(stateDirectory)/app-recoveries.json"
        self.wallClockMs = wallClockMs
    }

    /// `CLOCK_REALTIME` in milliseconds.
    public static let realtimeMs: @Sendable () -> Int64 = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// The file's entry for `unit`; nil when there is none (or it is unreadable: `problem` says why).
    public func load(unit: String) -> (entry: Entry?, problem: String?) {
        // Not through a symbolic link: the file is the daemon's own, in its state directory.
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 20, followLinks: false) else { return (nil, nil) }
        guard let value = try? JSONReader.value(of: bytes), let entry = try? JSONValueDecoder().decode(Entry.self, from: value) else {
            return (nil, "\(path) is not a recovery record; the count starts at zero")
        }
        guard entry.unit == unit else { return (nil, nil) }
        var bounded = entry
        // A file written by other hands holds no more than this daemon would have written.
        bounded.recoveries = Array(entry.recoveries.suffix(Self.capacity))
        return (bounded, nil)
    }

    /// Replaces the file with `entry`; the error's text when it could not be written.
    public func save(_ entry: Entry) -> String? {
        var entry = entry
        entry.recoveries = Array(entry.recoveries.suffix(Self.capacity))
        guard let value = try? JSONValueEncoder().encode(entry) else { return "cannot encode the recovery record" }
        var writer = JSONWriter()
        writer.value(value)
        do {
            try AtomicFile.write(writer.bytes + [0x0A], to: path, mode: 0o600)
            return nil
        } catch {
            return error.description
        }
    }
}
