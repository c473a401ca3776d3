#if canImport(Glibc)
import Glibc
#endif

/// The one reader of the process environment. A program reads it once, at start, and passes
/// what it needs on (splashd: `DaemonOptions.environment`, from which `JOURNAL_STREAM`,
/// `STATE_DIRECTORY`, `LISTEN_*`, `SPLASHD_SOCKET`, `NOTIFY_SOCKET` and `WATCHDOG_*` are taken,
/// and the rest is inherited by external plugins).
public enum ProcessEnvironment {
    /// The process environment as a dictionary. Split at the first `=` byte: comparing
    /// `Character`s would pull in grapheme breaking for every variable at start-up.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let length = strlen(entry)
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: length)
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
                result[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self)
            }
            pointer += 1
        }
        return result
    }
}
