import CLinuxShims
import CUdev
import Glibc

/// The drm subsystem's events (a connector plugged in or out: the kernel's HOTPLUG=1 change
/// event, passed on by udev) and the input devices udev has made ready (plugged in, or found
/// late in boot), through libudev's monitor; and a drm device's removal straight from the kernel
/// (`KernelUevent`), so that it is heard with no udevd running (the renderer started in the
/// initramfs before udev). Both sockets behind one descriptor (epoll), read when it is readable.
public final class HotplugMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    /// The kernel's uevent socket, -1 where it cannot be had (then udev's remove events count).
    private let kernel: Int32
    /// An epoll descriptor over both, or -1 (then only udev's monitor is watched).
    private let poller: Int32

    /// nil when udev's monitor cannot be made (no netlink, a container without udev).
    public init?() {
        guard let udev = udev_new() else { return nil }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            udev_unref(udev)
            return nil
        }
        guard udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", nil) >= 0,
            udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil) >= 0,
            udev_monitor_enable_receiving(monitor) >= 0
        else {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            return nil
        }
        self.udev = udev
        self.monitor = monitor
        var kernel = splashd_uevent_socket(1 << 20)
        let poller = kernel >= 0 ? splashd_epoll_either(udev_monitor_get_fd(monitor), kernel) : -1
        if poller < 0, kernel >= 0 {
            close(kernel)
            kernel = -1
        }
        self.kernel = kernel
        self.poller = poller
    }

    deinit {
        if poller >= 0 { close(poller) }
        if kernel >= 0 { close(kernel) }
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Readable when either socket has events.
    public var descriptor: Int32 { poller >= 0 ? poller : udev_monitor_get_fd(monitor) }

    /// What the events that arrived say.
    public struct Events: Sendable, Equatable {
        /// A drm device changed, came or went: its outputs may have.
        public var outputsChanged = false
        /// Event nodes of input devices that were added (`/dev/input/event3`).
        public var inputAdded: [String] = []
        /// Nodes of drm devices that went away (`/dev/dri/card0`: its driver unbound, or a
        /// firmware framebuffer replaced by the real driver).
        public var drmRemoved: [String] = []
    }

    /// Takes the events that have arrived.
    public func read() -> Events {
        var events = Events()
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            let subsystem = udev_device_get_subsystem(device).map { String(cString: $0) }
            if subsystem == "drm" {
                events.outputsChanged = true
                // With the kernel's socket its message said it first (and a late one of udevd's
                // must not be taken for a new device's at the same node).
                if kernel < 0, udev_device_get_action(device).map({ String(cString: $0) }) == "remove",
                    let node = udev_device_get_devnode(device).map({ String(cString: $0) }) {
                    events.drmRemoved.append(node)
                }
            } else if subsystem == "input", udev_device_get_action(device).map({ String(cString: $0) }) == "add",
                let node = udev_device_get_devnode(device).map({ String(cString: $0) }), node.hasPrefix("/dev/input/event") {
                events.inputAdded.append(node)
            }
        }
        var buffer = [UInt8](repeating: 0, count: KernelUevent.maximumSize)
        while kernel >= 0 {
            let length = buffer.withUnsafeMutableBytes { splashd_uevent_receive(kernel, $0.baseAddress, $0.count) }
            if length < 0 {
                // EAGAIN: all read. ENOBUFS: some were lost to a burst; whatever outputs there are now
                // are looked at again.
                if errno == ENOBUFS { events.outputsChanged = true; continue }
                if errno == EINTR { continue }
                break
            }
            guard length > 0, let message = KernelUevent(buffer.prefix(length)) else { continue }
            if message.isDRMChange { events.outputsChanged = true }
            if let node = message.removedDRMNode { events.drmRemoved.append(node) }
        }
        return events
    }
}
