import Foundation
import SplashClient
import TestSupport

/// Runs a connect attempt as user `nobody`, for permission tests under root: the real `splashctl`
/// under `setpriv`, so nothing runs between a fork and an exec (a forked child of this
/// multithreaded test process could deadlock on a lock another thread held at the fork).
enum PrivilegeDrop {
    /// What the attempt saw.
    enum Outcome: Equatable {
        case connected
        case permissionDenied
        /// splashctl's exit status for anything else, with what it printed.
        case other(status: Int32, output: String)
        /// setpriv or splashctl is not there to run.
        case unavailable(String)
    }

    static let setpriv = "/usr/bin/setpriv"

    /// `splashctl --socket path ping` as uid and gid 65534 with no supplementary groups.
    static func connectAsNobody(path: String) throws -> Outcome {
        for tool in [setpriv, Binaries.splashctl] where !FileManager.default.isExecutableFile(atPath: tool) {
            return .unavailable("\(tool) is missing")
        }
        let result = try ProcessRunner.run(
            setpriv,
            ["--reuid=65534", "--regid=65534", "--clear-groups", "--", Binaries.splashctl, "--socket", path, "ping"]
        )
        switch result.status {
        case ClientError.permissionDenied(path: path).exitCode: return .permissionDenied
        case 0: return .connected
        default: return .other(status: result.status, output: result.stdout + result.stderr)
        }
    }
}
