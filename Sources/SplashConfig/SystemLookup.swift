#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What checking a config asks of the system it runs on, beyond reading files: `splashd check`
/// and the daemon's start ask the same, so a config that passes the check starts.
public struct SystemLookup: Sendable {
    /// Whether a group of this name exists (for `[socket] control_group`).
    public var groupExists: @Sendable (String) -> Bool

    /// A lookup answering with `groupExists` (tests, or a check for another system).
    public init(groupExists: @escaping @Sendable (String) -> Bool) {
        self.groupExists = groupExists
    }

    /// The running system: groups through the name service (`getgrnam_r`: /etc/group, NSS), as
    /// the daemon resolves `control_group` when it binds its socket.
    public static let live = SystemLookup(groupExists: SystemLookup.systemGroupExists)

    static func systemGroupExists(_ name: String) -> Bool {
        guard !name.utf8.contains(0) else { return false }
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var size = 1024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getgrnam_r(name, &entry, &buffer, size, &result)
            if status == ERANGE && size < 1 << 20 {
                size *= 2
                continue
            }
            return status == 0 && result != nil
        }
    }
}
