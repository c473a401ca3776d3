import Foundation
public import SplashClient
import SplashCore

/// A real `splashd` process on a private socket, config, state and plugin directory.
public final class DaemonProcess: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let socketPath: String
    public let logPath: String
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)

    /// Writes `config` (TOML; a `[socket]` section is added unless present) and starts the daemon;
    /// with `config: nil` the daemon runs its embedded default (no `--config`, `--socket` given).
    /// Returns once the socket accepts clients.
    public init(
        config: String?,
        pluginDirectories: [String] = [],
        extraArguments: [String] = [],
        environment: [String: String] = [:],
        socketMode: String = "0660",
        controlGroup: String? = nil,
        socketPath: String? = nil,
        launcher: [String] = [],
        stateDirectory: String? = nil
    ) throws {
        directory = try TemporaryDirectory()
        self.socketPath = socketPath ?? directory.file("splashd.sock")
        logPath = directory.file("splashd.log")
        var configArguments = ["--socket", self.socketPath]
        if var text = config {
            if !text.contains("[socket]") {
                text += "\n[socket]\npath = \"\(self.socketPath)\"\nmode = \"\(socketMode)\"\n"
                if let controlGroup { text += "control_group = \"\(controlGroup)\"\n" }
            }
            configArguments = ["--config", try directory.write("splashd.toml", text)]
        }
        let state = stateDirectory ?? directory.file("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let daemonArguments =
            configArguments + ["--state-dir", state, "--verbose"]
            + pluginDirectories.flatMap { ["--plugin-dir", $0] } + extraArguments
        if let program = launcher.first {
            // E.g. systemd-socket-activate, which execs splashd in the same process.
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [Binaries.splashd] + daemonArguments
        } else {
            process.executableURL = URL(fileURLWithPath: Binaries.splashd)
            process.arguments = daemonArguments
        }
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.removeValue(forKey: "LISTEN_FDS")
        env.removeValue(forKey: "JOURNAL_STREAM")
        env.merge(environment) { _, new in new }
        process.environment = env
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        try waitUntilServing()
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The log lines that contain `text`.
    public func logLines(containing text: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(text) }
    }

    /// Bounded wait until the log has `count` lines containing `text`; false at the deadline.
    public func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(20)) -> Bool {
        let deadline = ContinuousClock.now + timeout * waitScale
        while ContinuousClock.now < deadline {
            if logLines(containing: text).count >= count { return true }
            usleep(20_000)
        }
        return false
    }

    /// Rewrites the config file (for reload tests).
    public func rewriteConfig(_ text: String) throws {
        try text.write(toFile: directory.file("splashd.toml"), atomically: true, encoding: .utf8)
    }

    /// Sends `signal` to the daemon.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Connects a new client.
    public func connect() throws -> SplashConnection { try SplashConnection(path: socketPath, timeout: .seconds(5) * waitScale) }

    /// Bounded wait for the socket to accept a client (or the daemon to die).
    private func waitUntilServing(timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout * waitScale
        while ContinuousClock.now < deadline {
            if !process.isRunning {
                throw DaemonFailure(message: "splashd exited with \(process.terminationStatus) before serving:\n\(log)")
            }
            if let connection = try? SplashConnection(path: socketPath, timeout: .seconds(1)) {
                connection.close()
                return
            }
            usleep(10_000)
        }
        throw DaemonFailure(message: "splashd did not serve \(socketPath) within \(timeout):\n\(log)")
    }

    /// SIGKILL (a crash, or a power cut as far as the process can tell), then waits for the exit.
    public func killAndWait() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        exited.wait()
        exited.signal()
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    public func stop(timeout: Duration = .seconds(20)) -> Int32 {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let seconds = Double(timeout.components.seconds * Int64(waitScale))
            if exited.wait(timeout: .now() + seconds) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        directory.remove()
    }
}

public struct DaemonFailure: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
