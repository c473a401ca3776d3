#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An errno as an operator reads it in a log: its text and its symbolic name.
public enum SystemError {
    /// "Permission denied (EACCES)"; unknown names as "errno N".
    public static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (\(name(code)))"
    }

    /// The symbolic name of the errno values a file operation may meet, else "errno N".
    public static func name(_ code: Int32) -> String {
        let names: [Int32: String] = [
            EPERM: "EPERM", ENOENT: "ENOENT", EIO: "EIO", EBADF: "EBADF", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM",
            EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV", ENOTDIR: "ENOTDIR",
            EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", EFBIG: "EFBIG",
            ENOSPC: "ENOSPC", EROFS: "EROFS", EMLINK: "EMLINK", ENAMETOOLONG: "ENAMETOOLONG", ELOOP: "ELOOP",
            EDQUOT: "EDQUOT", ETXTBSY: "ETXTBSY",
        ]
        return names[code] ?? "errno \(code)"
    }
}
