public import SplashProtocol

/// psplash's FIFO protocol, read as psplash reads it (psplash.c, `psplash_main` and
/// `parse_command`), so that its writers — SWUpdate's `swupdate-progress -p`, Mender's state
/// scripts, `psplash-write` — drive splashd unchanged.
///
/// A command is the bytes up to a NUL (what `psplash-write` sends: its argument and the NUL) or a
/// newline (`echo "PROGRESS 10" > /run/psplash_fifo`). Then, as psplash:
/// - exactly `QUIT` ends;
/// - else the first word (after any spaces, up to the next space) names the command, and the
///   argument is everything after that one space, as it is (`strtok(NULL, "\0")`);
/// - `PROGRESS n`: `n` read as C's `atoi` (spaces, a sign, digits; anything after them ignored;
///   an argument with no digits, `PROGRESS x`, is 0), clamped to -100…100. psplash fills a
///   negative value's bar from the right: the fill is as long, so splashd shows `|n|` %;
/// - `MSG text`: the text;
/// - `QUIT` with anything after it ends too; any other word is ignored.
///
/// Where psplash crashes or loses input, splashd does neither, and says so: a command with no
/// word, a `PROGRESS` with no argument at all (`PROGRESS`, `PROGRESS `: older psplash's
/// `atoi(NULL)` crashes, newer ones draw nothing), are `ignored` with their reason; every
/// command in one read counts (psplash parses the first of a read and drops the rest); a
/// command longer than psplash's 2048-byte buffer is dropped up to its end (psplash stops
/// reading for good). A trailing `\r` (a CRLF writer) is not part of the command.
public enum PsplashCommand: Sendable, Equatable {
    /// `PROGRESS n`: `n` in -100…100.
    case progress(Int)
    case message(String)
    case quit
    /// Not a command splashd acts on, with why (for the log).
    case ignored(reason: String)

    /// The fraction a `progress` shows, 0…1.
    public static func fraction(_ value: Int) -> Double { Double(min(100, abs(value))) / 100 }

    /// What the update view makes of the command; nil for one that is `ignored`.
    public var updateInput: ModeMachine.UpdateInput? {
        switch self {
        case .progress(let value): .progress(Self.fraction(value))
        case .message(let text): .message(text)
        case .quit: .quit
        case .ignored: nil
        }
    }

    /// Parses one command: its bytes without the NUL or newline that ended it.
    public static func parse(_ bytes: some Collection<UInt8>) -> PsplashCommand {
        var command = Array(bytes)
        if command.last == UInt8(ascii: "\r") { command.removeLast() }
        if command == Array("QUIT".utf8) { return .quit }
        let space = UInt8(ascii: " ")
        guard let start = command.firstIndex(where: { $0 != space }) else {
            return .ignored(reason: command.isEmpty ? "an empty command" : "a command of spaces alone")
        }
        let end = command[start...].firstIndex(of: space) ?? command.endIndex
        let word = command[start..<end]
        // strtok(NULL, "\0"): the rest after the one space that ended the word; none when the
        // word ended the command, or nothing follows that space.
        let argument: ArraySlice<UInt8>? = end < command.endIndex && end + 1 < command.endIndex ? command[(end + 1)...] : nil
        switch String(decoding: word, as: UTF8.self) {
        case "PROGRESS":
            guard let argument else { return .ignored(reason: "PROGRESS without an argument") }
            return .progress(max(-100, min(100, atoi(argument))))
        case "MSG":
            return .message(argument.map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "QUIT":
            return .quit
        default:
            return .ignored(reason: "an unknown command")
        }
    }

    /// C's `atoi`, saturating instead of overflowing: leading white space, an optional sign, then
    /// decimal digits as far as they go.
    static func atoi(_ bytes: some Collection<UInt8>) -> Int {
        var index = bytes.startIndex
        let white: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        while index < bytes.endIndex, white.contains(bytes[index]) { index = bytes.index(after: index) }
        var negative = false
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index = bytes.index(after: index)
        }
        var value = 0
        while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
            value = overflow || overflow2 ? Int.max : sum
            index = bytes.index(after: index)
        }
        return negative ? -value : value
    }
}

/// Splits what is read from psplash's FIFO into commands (`PsplashCommand`), across reads: a
/// command may come in pieces, several in one read. Bytes not yet ended by a NUL or a newline
/// wait for the next writer, as in psplash's buffer (a writer's close does not end a command).
public struct PsplashReader: Sendable {
    /// psplash's buffer: a longer command is dropped up to its end.
    public static let maxCommandBytes = 2048

    /// One thing read.
    public enum Item: Sendable, Equatable {
        case command(PsplashCommand)
        /// A command longer than `maxCommandBytes`, dropped: how many bytes it had.
        case tooLong(bytes: Int)
    }

    private var pending: [UInt8] = []
    /// Bytes of a command over the bound, dropped so far (nil: not dropping).
    private var dropping: Int?

    public init() {}

    /// Bytes of a command not yet ended.
    public var pendingBytes: Int { pending.count }

    /// The items of one read with what a later one of the same read makes moot taken out: between
    /// two `QUIT`s only the last `PROGRESS` and the last `MSG` count (the view shows the latest),
    /// and a `QUIT` right after a `QUIT` says nothing new. A writer that floods the FIFO then costs
    /// at most a few inputs per read, whatever a read holds; what is ignored stays (it is logged,
    /// within its own bound).
    public static func coalesced(_ items: [Item]) -> [Item] {
        var kept: [Item] = []
        var progress: Int?
        var message: Int?
        for item in items {
            switch item {
            case .command(.progress):
                if let index = progress { kept[index] = item } else { progress = kept.count; kept.append(item) }
            case .command(.message):
                if let index = message { kept[index] = item } else { message = kept.count; kept.append(item) }
            case .command(.quit):
                if kept.last == .command(.quit) { continue }
                kept.append(item)
                progress = nil
                message = nil
            case .command(.ignored), .tooLong:
                kept.append(item)
            }
        }
        return kept
    }

    /// Takes in one read; returns the commands it ended.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Item] {
        var items: [Item] = []
        for byte in bytes {
            if byte == 0 || byte == UInt8(ascii: "\n") {
                if let dropped = dropping {
                    items.append(.tooLong(bytes: dropped))
                    dropping = nil
                } else {
                    items.append(.command(PsplashCommand.parse(pending)))
                }
                pending.removeAll(keepingCapacity: true)
                continue
            }
            if let dropped = dropping {
                dropping = dropped + 1
            } else if pending.count == Self.maxCommandBytes {
                dropping = pending.count + 1
                pending.removeAll()
            } else {
                pending.append(byte)
            }
        }
        return items
    }
}
