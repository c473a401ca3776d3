import Foundation
@testable import SplashJournalWriter
import Testing
import TestSupport

/// The journal's native protocol and the sd_notify protocol, spoken without libsystemd, against
/// real datagram sockets. (`JournaldEndToEndTests` checks the same entries reach a real journald.)
@Suite struct NativeProtocolTests {
    @Test func fieldsAreLinesAndAValueWithANewlineIsLengthPrefixed() {
        let bytes = JournalSender.encode([
            JournalField("MESSAGE", "hello"),
            JournalField("SPLASHD_REASON", "two\nlines"),
            JournalField("PRIORITY", "6"),
        ])
        var expected = Array("MESSAGE=hello\nSPLASHD_REASON\n".utf8)
        expected += [9, 0, 0, 0, 0, 0, 0, 0]
        expected += Array("two\nlines\nPRIORITY=6\n".utf8)
        #expect(bytes == expected)
    }

    @Test func anEntryReachesTheSocketAsOneDatagram() throws {
        let dir = try TemporaryDirectory(prefix: "splashd-native")
        defer { dir.remove() }
        let receiver = try DatagramReceiver(path: dir.file("journal.sock"))
        let fields = [JournalField("MESSAGE", "hi"), JournalField("SPLASHD_STEP", "a\nb")]
        #expect(JournalSender.send(fields, to: receiver.path) == 0)
        let received = try #require(receiver.receive())
        #expect(received.bytes == JournalSender.encode(fields))
        #expect(received.descriptor == nil)
    }

    /// Over the datagram size limit the entry travels in a sealed memfd, as journald expects.
    @Test func anEntryTooLargeForADatagramIsPassedAsASealedMemfd() throws {
        let dir = try TemporaryDirectory(prefix: "splashd-native")
        defer { dir.remove() }
        let receiver = try DatagramReceiver(path: dir.file("journal.sock"))
        let big = String(repeating: "x", count: 1 << 20)
        let fields = [JournalField("MESSAGE", big)]
        #expect(JournalSender.send(fields, to: receiver.path) == 0)
        let received = try #require(receiver.receive())
        #expect(received.bytes.isEmpty)
        let fd = try #require(received.descriptor)
        defer { close(fd) }
        #expect(fcntl(fd, 1034 /* F_GET_SEALS */) & 0x000F == 0x000F, "shrink, grow, write and seal seals")
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        lseek(fd, 0, SEEK_SET)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            content += chunk[0..<count]
        }
        #expect(content == JournalSender.encode(fields))
    }

    @Test func noSocketIsENOENT() {
        #expect(JournalSender.send([JournalField("MESSAGE", "x")], to: "/nonexistent/journal.sock") == -ENOENT)
    }

    @Test func notifyReachesAPathAndAnAbstractSocket() throws {
        let dir = try TemporaryDirectory(prefix: "splashd-notify")
        defer { dir.remove() }
        let byPath = try DatagramReceiver(path: dir.file("notify.sock"))
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": byPath.path]).notify("READY=1\nSTATUS=up"))
        #expect(try #require(byPath.receive()).bytes == Array("READY=1\nSTATUS=up".utf8))

        let name = "splashd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let abstract = try DatagramReceiver(abstractName: name)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name]).notify("WATCHDOG=1"))
        #expect(try #require(abstract.receive()).bytes == Array("WATCHDOG=1".utf8))
    }

    @Test(arguments: [[:], ["NOTIFY_SOCKET": ""], ["NOTIFY_SOCKET": "relative.sock"], ["NOTIFY_SOCKET": "vsock:2:1"],
                      ["NOTIFY_SOCKET": "/nonexistent/notify.sock"]])
    func notifyWithoutAUsableSocketSendsNothing(environment: [String: String]) {
        #expect(!SystemdNotifier(environment: environment).notify("READY=1"))
    }

    @Test func theWatchdogIntervalIsForThisProcessOnly() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000"]).watchdogInterval == .seconds(4))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "\(getpid())"]).watchdogInterval == .seconds(4))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: [:]).watchdogInterval == nil)
    }
}

/// A bound `AF_UNIX` datagram socket that receives one message and any descriptor passed with it.
final class DatagramReceiver {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = try Self.bound { address in
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8))
                raw[path.utf8.count] = 0
            }
            return socklen_t(MemoryLayout<sockaddr_un>.size)
        }
    }

    init(abstractName: String) throws {
        path = "@" + abstractName
        fd = try Self.bound { address in
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw[0] = 0
                for (index, byte) in abstractName.utf8.enumerated() { raw[index + 1] = byte }
            }
            return socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + 1 + abstractName.utf8.count)
        }
    }

    private static func bound(_ fill: (inout sockaddr_un) -> socklen_t) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let length = fill(&address)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard result == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        return fd
    }

    deinit { close(fd) }

    /// One message within five seconds: its bytes, and the descriptor it carried, if any.
    func receive() -> (bytes: [UInt8], descriptor: Int32?)? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 5000) > 0 else { return nil }
        var data = [UInt8](repeating: 0, count: 256 * 1024)
        var control = [UInt8](repeating: 0, count: 64)
        var descriptor: Int32?
        let count = data.withUnsafeMutableBytes { dataBytes in
            control.withUnsafeMutableBytes { controlBytes -> Int in
                var vector = iovec(iov_base: dataBytes.baseAddress, iov_len: dataBytes.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    let count = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                    if count >= 0, message.msg_controllen >= MemoryLayout<cmsghdr>.stride + 4 {
                        let header = controlBytes.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                        if header.pointee.cmsg_level == SOL_SOCKET, header.pointee.cmsg_type == Int32(SCM_RIGHTS) {
                            descriptor = controlBytes.load(fromByteOffset: MemoryLayout<cmsghdr>.stride, as: Int32.self)
                        }
                    }
                    return count
                }
            }
        }
        guard count >= 0 else { return nil }
        return (Array(data[0..<count]), descriptor)
    }
}
