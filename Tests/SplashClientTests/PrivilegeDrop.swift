import Glibc
import SplashClient

/// Runs a connect attempt as user `nobody` in a forked child, for permission tests under root.
enum PrivilegeDrop {
    /// What the child saw.
    enum Outcome: UInt8, Equatable {
        case connected = 1
        case permissionDenied = 2
        case otherError = 3
        case couldNotDropPrivileges = 4
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Forks; the child drops to uid/gid 65534 and connects to `path`; answers within 5 s.
    static func connectAsNobody(path: String) throws -> Outcome {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe failed") }
        let pid = fork()
        guard pid >= 0 else { throw Failure(description: "fork failed") }
        if pid == 0 {
            close(fds[0])
            var result = Outcome.couldNotDropPrivileges
            if setgroups(0, nil) == 0 && setgid(65534) == 0 && setuid(65534) == 0 {
                do {
                    _ = try SplashConnection(path: path, timeout: .seconds(1))
                    result = .connected
                } catch .permissionDenied {
                    result = .permissionDenied
                } catch {
                    result = .otherError
                }
            }
            var byte = result.rawValue
            _ = write(fds[1], &byte, 1)
            _exit(0)
        }
        close(fds[1])
        defer { close(fds[0]) }
        var entry = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        let ready = poll(&entry, 1, 5000) > 0 && read(fds[0], &byte, 1) == 1
        if !ready { kill(pid, SIGKILL) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard ready, let outcome = Outcome(rawValue: byte) else { throw Failure(description: "the child did not answer") }
        return outcome
    }
}
