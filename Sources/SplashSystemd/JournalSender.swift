import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// Sends journal entries with `sd_journal_sendv`, and writes the fallback lines to stderr.
///
/// `sd_journal_send` is variadic and not callable from Swift; `sd_journal_sendv` takes one
/// `iovec` per `NAME=value` field, so values may hold newlines or any other bytes.
enum JournalSender {
    /// journald's native socket.
    static let socketPath = "/run/systemd/journal/socket"

    /// Sends `fields` as one journal entry; returns 0, or a negative errno when it was not sent.
    ///
    /// `sd_journal_sendv` reports success when the journal socket does not exist ("fail silently
    /// if the journal is not available"); that case is checked first and returns `-ENOENT`.
    static func send(_ fields: [JournalField]) -> Int32 {
        if access(socketPath, F_OK) != 0 { return -errno }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + 1 + $1.value.utf8.count })
        var spans: [(start: Int, count: Int)] = []
        spans.reserveCapacity(fields.count)
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: field.value.utf8)
            spans.append((start, buffer.count - start))
        }
        return buffer.withUnsafeMutableBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return -EINVAL }
            let vectors = spans.map { iovec(iov_base: base + $0.start, iov_len: $0.count) }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }

    /// Writes `line` and a newline to stderr in one write(2), so concurrent lines never interleave.
    static func writeToStderr(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(2, base + offset, raw.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Why a send that returned the negative errno `code` failed.
    static func describe(_ code: Int32) -> String {
        if code == -ENOENT { return "no journal socket at \(socketPath)" }
        return String(cString: strerror(-code))
    }
}
