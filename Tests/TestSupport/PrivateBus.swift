import Foundation

/// A private D-Bus (Debian's dbus-daemon) on a socket in `directory`: the tests' system bus (a fake
/// systemd on it, RAUC's service). Listening once `init` returns; stopped by `close`.
///
/// With the session configuration (anyone may own any name and call anything), or with
/// `systemPolicy`: Debian's own system bus configuration (`/usr/share/dbus-1/system.conf` and the
/// policies of `system.d`: every user may send signals, only root owns systemd's and RAUC's
/// names), read from the machine and changed only where it says where to listen and what to run
/// as: what a hostile local user meets on a device.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    private let process = Process()

    public init(in directory: TemporaryDirectory, systemPolicy: Bool = false) throws {
        address = "unix:path=\(directory.file("bus"))"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        if systemPolicy {
            var configuration = try String(contentsOfFile: "/usr/share/dbus-1/system.conf", encoding: .utf8)
            for (from, to) in [
                ("<user>messagebus</user>", ""), ("<fork/>", ""), ("<pidfile>/run/dbus/pid</pidfile>", ""), ("<syslog/>", ""),
                ("<listen>unix:path=/run/dbus/system_bus_socket</listen>", "<listen>\(address)</listen>"),
                ("<includedir>system.d</includedir>", "<includedir>/usr/share/dbus-1/system.d</includedir>"),
            ] {
                guard configuration.contains(from) else { throw NotDebiansSystemBus(missing: from) }
                configuration = configuration.replacingOccurrences(of: from, with: to)
            }
            let file = try directory.write("system-bus.conf", configuration)
            process.arguments = ["--config-file=\(file)", "--nofork", "--nopidfile", "--print-address"]
        } else {
            process.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)", "--print-address"]
        }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // It prints its address once it listens.
        _ = out.fileHandleForReading.availableData
    }

    /// Stops the bus (SIGKILL, then waits for it).
    public func close() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { close() }

    /// `/usr/share/dbus-1/system.conf` is not the one this was written against.
    public struct NotDebiansSystemBus: Error { public var missing: String }
}
