/// Splits a byte stream into lines, never holding more than `maxLength` bytes of one line.
///
/// A line longer than `maxLength` is emitted once, cut to its first `maxLength` bytes and marked
/// truncated; the rest of it (up to the next newline) is dropped. A trailing `\r` is removed, so
/// CRLF output reads like LF output. Invalid UTF-8 is repaired with U+FFFD.
///
/// Not `LineFrameDecoder`: a plugin's pipe is no NIO channel, and its overlong line is a log line, cut, not refused.
package struct LineSplitter {
    /// One complete (or cut) line.
    package struct Line: Equatable {
        package var text: String
        /// Whether bytes past `maxLength` were dropped.
        var truncated: Bool
    }

    /// The longest line kept, in bytes.
    let maxLength: Int
    private var pending: [UInt8] = []
    /// Set after a truncated line was emitted, until its newline arrives.
    private var discarding = false

    package init(maxLength: Int) {
        precondition(maxLength > 0, "maxLength must be positive")
        self.maxLength = maxLength
    }

    /// Feeds a chunk of bytes and returns the lines it completed.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Line] {
        var lines: [Line] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.endIndex
            if !discarding {
                let room = maxLength - pending.count
                let take = min(room, end - start)
                pending.append(contentsOf: bytes[start..<(start + take)])
                if take < end - start {
                    // This line is longer than the cap: emit what fits and drop the rest.
                    lines.append(Line(text: Self.decode(pending), truncated: true))
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                }
            }
            guard let newline else { break }
            if discarding {
                discarding = false
            } else {
                lines.append(Line(text: Self.decode(pending), truncated: false))
                pending.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
        return lines
    }

    /// Feeds an array of bytes and returns the lines it completed.
    mutating func feed(_ bytes: [UInt8]) -> [Line] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Ends the stream: returns the last line if it had no newline.
    mutating func finish() -> Line? {
        defer {
            pending.removeAll()
            discarding = false
        }
        guard !pending.isEmpty else { return nil }
        return Line(text: Self.decode(pending), truncated: false)
    }

    private static func decode(_ bytes: [UInt8]) -> String {
        var slice = bytes[...]
        if slice.last == UInt8(ascii: "\r") {
            slice = slice.dropLast()
        }
        return String(decoding: slice, as: UTF8.self)
    }
}
