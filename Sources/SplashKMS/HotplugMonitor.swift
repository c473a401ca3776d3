import CUdev
import Glibc

/// The drm subsystem's events (a connector plugged in or out: the kernel's HOTPLUG=1 change
/// event, passed on by udev) through libudev's monitor. Read when its descriptor is readable.
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

    /// Takes the events that have arrived; whether any was a drm device's change (or add/remove).
    public func read() -> Bool {
        var changed = false
        while let device = udev_monitor_receive_device(monitor) {
            changed = true
            udev_device_unref(device)
        }
        return changed
    }
}
