import CUdev
import Glibc

/// The drm subsystem's events (a connector plugged in or out: the kernel's HOTPLUG=1 change
/// event, passed on by udev) and the input devices udev has made ready (plugged in, or found
/// late in boot), through libudev's monitor. Read when its descriptor is readable.
public final class HotplugMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer

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
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    public var descriptor: Int32 { udev_monitor_get_fd(monitor) }

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
                if udev_device_get_action(device).map({ String(cString: $0) }) == "remove",
                    let node = udev_device_get_devnode(device).map({ String(cString: $0) }) {
                    events.drmRemoved.append(node)
                }
            } else if subsystem == "input", udev_device_get_action(device).map({ String(cString: $0) }) == "add",
                let node = udev_device_get_devnode(device).map({ String(cString: $0) }), node.hasPrefix("/dev/input/event") {
                events.inputAdded.append(node)
            }
        }
        return events
    }
}
