import CLinuxShims
#if canImport(Glibc)
import Glibc
#endif

/// The daemon as a child subreaper (`PR_SET_CHILD_SUBREAPER`, Linux 3.4): a plugin's descendant
/// whose parent exits — a double fork, a daemonizing helper — is reparented to the daemon
/// instead of init, so that `PluginContainment` can find it, stop it with its step and reap it.
///
/// Works the same under systemd (prctl is in `@system-service`) and from a plain shell.
public enum ChildSubreaper {
    /// Makes this process a child subreaper; the errno text when the kernel refuses.
    @discardableResult
    public static func enable() -> String? {
        guard splashd_set_child_subreaper(1) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Whether this process is a child subreaper.
    public static var isEnabled: Bool { splashd_is_child_subreaper() == 1 }
}
