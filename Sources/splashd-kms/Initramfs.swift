import CLinuxShims
import Glibc
import SplashCommandLine
import SplashKMS
import SplashSupport

/// The renderer started in the initramfs (design §16, docs/renderer-kms.md "From the
/// initramfs"): it draws the theme's still view before splashd exists, moves into the real root
/// when the initramfs's last script asks (SIGUSR1), survives the switch (`argv[0][0]` is `@`,
/// which systemd's killing sprees leave alone), and carries on there with the same process:
/// `splashd-kms.service` sees it and starts no second one (`splashd-kms condition`).
enum Initramfs {
    /// Where the renderer from the initramfs writes its PID (in /run, which the initramfs moves
    /// into the real root).
    static let pidFile = "/run/splashd-kms/initramfs.pid"
    /// Written "ok" once the renderer has moved into the real root (the init-bottom script waits
    /// for it before the switch).
    static let ackFile = "/run/splashd-kms/new-root"

    /// Makes this process the initramfs's renderer: `@` as the first character of its command
    /// line, its PID written down, and SIGUSR1 armed to move it into `root`.
    static func prepare(newRoot root: String) throws {
        if let name = CommandLine.unsafeArgv[0], name.pointee != 0 { name.pointee = CChar(UInt8(ascii: "@")) }
        // Before the move can come: the real root's /proc is bare until the initramfs moves its
        // own there, after the move (a watch made in between reads the mount table through this).
        _ = ProcDirectory.descriptor
        guard splashd_arm_new_root(root, ackFile) == 0 else {
            throw ValidationError("cannot arm the move into \(root): \(String(cString: strerror(errno)))")
        }
        try AtomicFile.write(Array("\(getpid())\n".utf8), to: pidFile)
    }

    /// The PID of the renderer the initramfs started, if it still runs: the PID file names a
    /// live process whose command line starts with `@` and whose name is splashd-kms.
    static func runningRenderer() -> Int32? {
        guard let text = try? FileSystem.readFile(pidFile, limit: 64),
              let pid = Int32(String(decoding: text, as: UTF8.self).filter { !$0.isWhitespace }), pid > 1,
              let commandLine = try? FileSystem.readFile("/proc/\(pid)/cmdline", limit: 4096),
              commandLine.first == UInt8(ascii: "@"),
              let name = try? FileSystem.readFile("/proc/\(pid)/comm", limit: 64),
              String(decoding: name, as: UTF8.self).hasPrefix("splashd-kms")
        else { return nil }
        return pid
    }
}

extension SplashdKMSCommand {
    /// `splashd-kms condition`: the unit's `ExecCondition=`, so it starts no second renderer when
    /// the one from the initramfs carries on.
    struct Condition {
        static let spec = CommandSpec(
            name: "condition",
            abstract: "Exit 0 when a renderer is to be started; 1 when the one the initramfs started still runs (splashd-kms.service's ExecCondition).")

        func run() throws {
            if let pid = Initramfs.runningRenderer() {
                print("the renderer the initramfs started (PID \(pid)) has the display: no second one")
                throw ExitCode(1)
            }
        }
    }
}
