import CLinuxShims
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Sends journal entries over journald's native protocol, and writes the fallback lines to stderr.
///
/// One entry is one datagram to `/run/systemd/journal/socket`: `NAME=value` lines, or, for a value
/// holding a newline, `NAME`, a newline, the value's length as a little-endian 64-bit integer, the
/// value and a newline. An entry too large for a datagram goes in a sealed memfd whose descriptor
/// is passed instead. That is what `sd_journal_sendv` does; systemd documents the protocol as
/// stable for other clients (systemd.io/JOURNAL_NATIVE_PROTOCOL). Speaking it here keeps
/// libsystemd and the six libraries it loads out of the daemon (see `SystemdNotifier`).
enum JournalSender {
    /// journald's native socket.
    static let socketPath = "/run/systemd/journal/socket"

    /// One datagram socket for every entry, opened at first use and kept (sends on it are atomic).
    private static let socketDescriptor: Int32 = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)

    /// The wire form of `fields` as one entry.
    static func encode(_ fields: [JournalField]) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 10 })
        for field in fields {
            buffer.append(contentsOf: field.name.utf8)
            if field.value.utf8.contains(UInt8(ascii: "\n")) {
                buffer.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(field.value.utf8.count).littleEndian) { buffer.append(contentsOf: $0) }
            } else {
                buffer.append(UInt8(ascii: "="))
            }
            buffer.append(contentsOf: field.value.utf8)
            buffer.append(UInt8(ascii: "\n"))
        }
        return buffer
    }

    /// Sends `fields` as one journal entry to journald (or to the datagram socket at `path`);
    /// returns 0, or a negative errno when it was not sent (`-ENOENT` when there is no socket).
    static func send(_ fields: [JournalField], to path: String = socketPath) -> Int32 {
        let fd = socketDescriptor
        guard fd >= 0 else { return -EBADF }
        guard let address = UnixAddress(path) else { return -EINVAL }
        let payload = encode(fields)
        let sent = address.withSockaddr { sockaddr, length in
            payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sockaddr, length) }
        }
        if sent >= 0 { return 0 }
        let error = errno
        guard error == EMSGSIZE || error == ENOBUFS else { return -error }
        return sendLarge(payload, over: fd, to: address)
    }

    /// An entry over the datagram limit: written to a sealed memfd, whose descriptor is sent.
    private static func sendLarge(_ payload: [UInt8], over fd: Int32, to address: UnixAddress) -> Int32 {
        let memory = splashd_memfd_create_sealable("splashd-journal")
        guard memory >= 0 else { return -errno }
        defer { close(memory) }
        do {
            _ = try FileDescriptor(rawValue: memory).writeAll(payload)
        } catch {
            return -((error as? Errno)?.rawValue ?? EIO)
        }
        guard splashd_memfd_seal(memory) == 0 else { return -errno }
        // One SCM_RIGHTS control message carrying the descriptor, and no data.
        let controlLength = Int(MemoryLayout<cmsghdr>.stride) + MemoryLayout<Int32>.stride
        var control = [UInt8](repeating: 0, count: (controlLength + 7) & ~7)
        let result = address.withSockaddr { sockaddr, length -> Int in
            control.withUnsafeMutableBytes { controlBytes -> Int in
                let header = controlBytes.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                header.pointee.cmsg_len = controlLength
                header.pointee.cmsg_level = SOL_SOCKET
                header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                (controlBytes.baseAddress! + MemoryLayout<cmsghdr>.stride).storeBytes(of: memory, as: Int32.self)
                var message = msghdr()
                message.msg_name = UnsafeMutableRawPointer(mutating: sockaddr)
                message.msg_namelen = length
                message.msg_control = controlBytes.baseAddress
                message.msg_controllen = controlBytes.count
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            }
        }
        return result >= 0 ? 0 : -errno
    }

    /// Writes `line` and a newline to stderr in one write(2) (writeAll only writes again after a
    /// short write), so concurrent lines do not interleave.
    static func writeToStderr(_ line: String) {
        _ = try? FileDescriptor(rawValue: 2).writeAll((line + "\n").utf8)
    }

    /// Why a send that returned the negative errno `code` failed.
    static func describe(_ code: Int32) -> String {
        if code == -ENOENT { return "no journal socket at \(socketPath)" }
        return String(cString: strerror(-code))
    }
}
