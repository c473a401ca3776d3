import CLinuxShims
import Glibc
@testable import SplashKMS
import Testing

/// The kernel's uevents, as the renderer hears its device's removal with no udevd running.
@Suite struct KernelUeventTests {
    static func message(_ fields: [String]) -> [UInt8] {
        fields.flatMap { Array($0.utf8) + [0] }
    }

    @Test func aDRMNodesRemovalIsRead() throws {
        let bytes = Self.message([
            "remove@/devices/platform/simple-framebuffer.0/drm/card0", "ACTION=remove",
            "DEVPATH=/devices/platform/simple-framebuffer.0/drm/card0", "SUBSYSTEM=drm", "DEVNAME=dri/card0", "DEVTYPE=drm_minor",
            "SEQNUM=1403", "MAJOR=226", "MINOR=0",
        ])
        let event = try #require(KernelUevent(bytes))
        #expect(event.action == "remove" && event.devicePath == "/devices/platform/simple-framebuffer.0/drm/card0")
        #expect(event.removedDRMNode == "/dev/dri/card0")
        #expect(event.isDRMChange)
    }

    @Test func aConnectorChangeIsAChangeAndRemovesNothing() throws {
        let event = try #require(KernelUevent(Self.message([
            "change@/devices/pci0000:00/0000:00:02.0/virtio0/drm/card0", "ACTION=change", "SUBSYSTEM=drm", "HOTPLUG=1", "DEVNAME=dri/card0",
        ])))
        #expect(event.isDRMChange && event.removedDRMNode == nil)
    }

    @Test func otherDevicesAndOtherMessagesAreNotTheRenderers() {
        let input = KernelUevent(Self.message(["remove@/devices/virtual/input/input3/event3", "ACTION=remove", "SUBSYSTEM=input", "DEVNAME=input/event3"]))
        #expect(input != nil && input?.removedDRMNode == nil && input?.isDRMChange == false)
        // udevd's own messages (its group, or sent by a process) start with its magic.
        #expect(KernelUevent(Array("libudev".utf8) + [0, 0xfe, 0xed, 0xca, 0xfe]) == nil)
        #expect(KernelUevent(Self.message(["no header here", "SUBSYSTEM=drm"])) == nil)
        #expect(KernelUevent(Self.message(["remove@relative", "SUBSYSTEM=drm", "DEVNAME=dri/card0"])) == nil)
        #expect(KernelUevent([]) == nil)
        // Two actions that disagree: not the kernel's.
        #expect(KernelUevent(Self.message(["add@/devices/x/drm/card0", "ACTION=remove", "SUBSYSTEM=drm", "DEVNAME=dri/card0"])) == nil)
        // A name that climbs out of /dev/dri is no node of ours.
        let climbing = KernelUevent(Self.message(["remove@/devices/x/drm/card0", "SUBSYSTEM=drm", "DEVNAME=dri/../sda"]))
        #expect(climbing != nil && climbing?.removedDRMNode == nil)
        let elsewhere = KernelUevent(Self.message(["remove@/devices/x/drm/card0", "SUBSYSTEM=drm", "DEVNAME=sda"]))
        #expect(elsewhere?.removedDRMNode == nil)
    }

    /// The real kernel: a `change` written to a device's `uevent` file (the null device's, which
    /// nothing acts on) arrives on the socket, from the kernel, and reads as that device's.
    @Test func theKernelsSocketHearsTheKernel() throws {
        let trigger = "/sys/class/mem/null/uevent"
        try #require(getuid() == 0 && access(trigger, W_OK) == 0, "needs root and a writable /sys (the test command runs as root)")
        let fd = splashd_uevent_socket(1 << 20)
        try #require(fd >= 0, "no uevent socket: errno \(errno)")
        defer { close(fd) }
        let out = open(trigger, O_WRONLY | O_CLOEXEC)
        try #require(out >= 0)
        #expect(write(out, "change", 6) == 6)
        close(out)
        var heard: KernelUevent?
        var buffer = [UInt8](repeating: 0, count: KernelUevent.maximumSize)
        // Bounded: the kernel sends it at once; other devices' messages may come between.
        for _ in 0..<200 where heard == nil {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 5_000) == 1 else { break }
            let length = buffer.withUnsafeMutableBytes { splashd_uevent_receive(fd, $0.baseAddress, $0.count) }
            guard length > 0, let event = KernelUevent(buffer.prefix(length)), event.devicePath.hasSuffix("/mem/null") else { continue }
            heard = event
        }
        let event = try #require(heard, "the kernel's change event never came")
        #expect(event.action == "change" && event.properties["SUBSYSTEM"] == "mem" && event.properties["DEVNAME"] == "null")
        #expect(event.removedDRMNode == nil && !event.isDRMChange)
    }
}
