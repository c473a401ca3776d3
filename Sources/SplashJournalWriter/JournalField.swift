/// One journal field of a record: a valid field name and its value.
///
/// journald silently drops fields whose names are not valid: upper case letters, digits and `_`,
/// not starting with a digit or `_`, at most 64 characters. ``metadataName(for:)`` builds such a
/// name for any metadata key.
public struct JournalField: Sendable, Equatable, CustomStringConvertible {
    /// The field name, e.g. `SPLASHD_STEP`.
    public var name: String
    /// The value; it may contain newlines or any other bytes.
    public var value: String

    /// A field named `name` with `value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }

    /// The longest field name journald accepts.
    public static let maxNameLength = 64

    /// The prefix of the fields that carry our metadata.
    public static let metadataPrefix = "SPLASHD_"

    /// The journal field name of metadata key `key`: `SPLASHD_` and the key in upper case.
    ///
    /// Characters outside `[A-Z0-9_]` become `_`; leading underscores of the key are dropped (so
    /// `_x` gives `SPLASHD_X`); a key with nothing left gives `SPLASHD_KEY`; the name is cut at
    /// 64 characters. Digits may lead the key: the name itself always starts with `S`.
    public static func metadataName(for key: String) -> String {
        var body: [UInt8] = []
        body.reserveCapacity(key.utf8.count)
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                body.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                body.append(byte - 32)
            case 0x80...0xBF:
                // A UTF-8 continuation byte: its character already became one `_`.
                continue
            default:
                body.append(UInt8(ascii: "_"))
            }
        }
        let trimmed = body.drop { $0 == UInt8(ascii: "_") }
        let name = metadataPrefix + (trimmed.isEmpty ? "KEY" : String(decoding: trimmed, as: UTF8.self))
        return String(name.prefix(maxNameLength))
    }

    /// Whether journald keeps a field named `name` from a client: `[A-Z0-9_]`, 1 to 64
    /// characters, not starting with a digit or `_` (those are the fields journald sets itself).
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maxNameLength else { return false }
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        if first == UInt8(ascii: "_") || digits.contains(first) { return false }
        return bytes.allSatisfy { upper.contains($0) || digits.contains($0) || $0 == UInt8(ascii: "_") }
    }
}
