import Foundation

/// Writes `text` to `path` with `mode`, atomically (a temporary file in the same directory,
/// renamed into place), through a descriptor opened with `O_CLOEXEC`; returns `path`.
///
/// Foundation's `Data.write` and `String.write(toFile:)` open without `O_CLOEXEC`, and
/// `Foundation.Process` does not close inherited descriptors: a daemon another test starts at
/// that moment keeps the file open for writing as long as it lives, and starting the file as a
/// plugin fails with `ETXTBSY` ("Text file busy") for seconds. That made the suite flaky under
/// load. With `O_CLOEXEC` a concurrent spawn holds the descriptor only until its `exec`, which
/// the daemon's retry on `ETXTBSY` covers. Write every file a test executes with this.
@discardableResult
public func writeClosingOnExec(_ path: String, _ text: String, mode: UInt32 = 0o644) throws -> String {
    let mode = mode_t(mode)
    let temporary = "\(path).tmp-\(UInt64.random(in: 0...UInt64.max))"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var renamed = false
    defer {
        close(descriptor)
        if !renamed { unlink(temporary) }
    }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        bytes = bytes.dropFirst(written)
    }
    guard fchmod(descriptor, mode) == 0, rename(temporary, path) == 0 else {
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
    renamed = true
    return path
}
