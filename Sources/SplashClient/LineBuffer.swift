/// Splits a byte stream into `\n`-terminated lines, refusing any line longer than a limit.
///
/// Bytes are appended as they arrive; `nextLine()` hands out complete lines (without the `\n`)
/// and never lets a single unterminated line grow past `maxLineBytes`.
///
/// Not `LineFrameDecoder`: SplashClient links no NIO (so splashctl starts fast), and splashd sends no `\r`.
struct LineBuffer {
    /// The longest line accepted, in bytes, without the `\n`.
    let maxLineBytes: Int
    private var bytes: [UInt8] = []
    /// Start of the first unconsumed byte.
    private var start = 0
    /// Bytes from `start` up to here are known to hold no `\n`.
    private var scanned = 0

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes received but not yet handed out as a line.
    var pendingCount: Int { bytes.count - start }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        if start > 0 && start * 2 >= bytes.count {
            bytes.removeFirst(start)
            scanned -= start
            start = 0
        }
        bytes.append(contentsOf: chunk)
    }

    mutating func append(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { append($0) }
    }

    /// The next complete line, or nil until more bytes arrive.
    mutating func nextLine() throws(ClientError) -> [UInt8]? {
        var index = max(scanned, start)
        while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
        guard index < bytes.count else {
            scanned = index
            if bytes.count - start > maxLineBytes { throw tooLong }
            return nil
        }
        guard index - start <= maxLineBytes else { throw tooLong }
        let line = Array(bytes[start..<index])
        start = index + 1
        scanned = start
        return line
    }

    private var tooLong: ClientError {
        .invalidMessage("a line longer than \(maxLineBytes) bytes, the protocol's bound (the line cannot be read, and the connection ends)")
    }
}
