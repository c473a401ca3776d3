import Foundation

/// Looks at processes by pid, for tests that check what outlived what.
public enum ProcessStatus {
    /// Whether `pid` is a process that still runs (exists and is not a zombie).
    ///
    /// A zombie has stopped running and holds nothing open: it counts as gone (orphans that init
    /// adopts may stay zombies for a while, in some containers for ever).
    public static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else {
            return true
        }
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state != "Z" && state != "X"
    }

    /// The pid written (as decimal text with a newline) to the file at `path`, if it is complete.
    public static func pid(inFile path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else {
            return nil
        }
        return Int32(String(text.dropLast()))
    }

    /// The pids in every file of `directory` whose name starts with `prefix`.
    public static func pids(inFilesOf directory: String, prefix: String = "") -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) && !$0.hasSuffix(".tmp") }.sorted()
            .compactMap { pid(inFile: "\(directory)/\($0)") }
    }
}

/// The id of a process that no longer exists (`/bin/true`, run to its end and reaped).
public func deadProcessID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}
