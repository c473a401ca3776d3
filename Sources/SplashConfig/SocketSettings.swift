#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `[socket]` section: where the daemon listens and who may change its state.
public struct SocketSettings: Sendable, Equatable {
    /// Path of the Unix socket; `nil` lets the daemon decide (socket activation or its default).
    public var path: String?
    /// Permission bits of the socket file, at most `0o777`.
    public var mode: UInt32
    /// Members of this group may send commands that change state; `nil`: only root.
    public var controlGroup: String?
    /// The most clients served at once (`max_clients`); the daemon serves fewer when its
    /// descriptor limit, less a reserve for plugins, leaves room for fewer.
    public var maxClients: Int = SocketSettings.defaultMaxClients

    /// The default permission bits, `0o660`.
    public static let defaultMode: UInt32 = 0o660
    /// The default `max_clients`, 1024.
    public static let defaultMaxClients = 1024
    /// The values `max_clients` may take.
    public static let maxClientsRange = 1...1_000_000

    /// The longest socket path a Unix socket address holds, in bytes: `sun_path` less its
    /// terminating NUL (107 on Linux).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Creates socket settings; the defaults are those of a config without `[socket]`.
    public init(path: String? = nil, mode: UInt32 = SocketSettings.defaultMode, controlGroup: String? = nil) {
        self.path = path
        self.mode = mode
        self.controlGroup = controlGroup
    }

    /// Parses a permission mode written as octal digits: `"0660"`, `"660"`, `"0o660"`.
    ///
    /// Returns `nil` unless the text is 1 to 4 octal digits (after an optional `0o`) with a value
    /// of at most `0o777`.
    public static func parseMode(_ text: String) -> UInt32? {
        var digits = Substring(text)
        if digits.hasPrefix("0o") { digits = digits.dropFirst(2) }
        guard (1...4).contains(digits.count), digits.allSatisfy({ ("0"..."7").contains($0) }),
            let value = UInt32(digits, radix: 8), value <= 0o777
        else { return nil }
        return value
    }
}
