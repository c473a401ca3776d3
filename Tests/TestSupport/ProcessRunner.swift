import Foundation

/// The result of running a command to completion.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs short-lived commands (splashctl, splashd check) and collects their output.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`; gives up (SIGKILL) after `timeout`.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        // Read both pipes fully (concurrently) so a chatty child never blocks on a full pipe.
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if done.wait(timeout: .now() + seconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            done.wait()
        }
        group.wait()
        return CommandResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)
        )
    }
}
