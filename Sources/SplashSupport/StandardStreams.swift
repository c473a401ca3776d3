import SystemPackage

/// Unbuffered writes to stdout and stderr: a line is out before anyone waits for it, and there is
/// no global `FILE*` to share under strict concurrency.
public enum StandardStreams {
    /// Writes all of `text` to `descriptor` (stderr unless told otherwise). swift-system retries
    /// short writes and EINTR; an error is dropped, as there is nowhere left to report it.
    public static func write(_ text: String, to descriptor: Int32 = 2) {
        _ = try? FileDescriptor(rawValue: descriptor).writeAll(text.utf8)
    }

    /// Writes `text` and a newline to stderr.
    public static func printError(_ text: String) {
        write(text + "\n")
    }
}
