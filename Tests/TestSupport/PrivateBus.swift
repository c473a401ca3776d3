import Foundation

/// A private D-Bus (Debian's dbus-daemon, session configuration) on a socket in `directory`: the
/// tests' system bus (a fake systemd on it, RAUC's service). Listening once `init` returns;
/// stopped by `close`.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    private let process = Process()

    public init(in directory: TemporaryDirectory) throws {
        address = "unix:path=\(directory.file("bus"))"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)", "--print-address"]
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
}
