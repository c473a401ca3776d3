/// One message of the kernel's uevent netlink group (`NETLINK_KOBJECT_UEVENT`, group 1): what
/// the kernel says of a device as it adds, changes or removes it, before udev (if any runs) has
/// seen it. The renderer hears its device's removal here, so that it lets the device go even
/// where no udevd runs yet: started in the initramfs before udev, on simpledrm's `card0`, which
/// goes when the real GPU's driver takes over (docs/renderer-kms.md, "A device that goes away").
///
/// The message is `ACTION@DEVPATH`, then `KEY=VALUE` strings, each ended by a NUL
/// (`lib/kobject_uevent.c`). Messages of udevd's own group start with `libudev` and are not
/// these. A message that is not one is nil.
public struct KernelUevent: Sendable, Equatable {
    public var action: String
    public var devicePath: String
    public var properties: [String: String]

    public init(action: String, devicePath: String, properties: [String: String] = [:]) {
        self.action = action
        self.devicePath = devicePath
        self.properties = properties
    }

    /// The largest message the kernel sends (`UEVENT_BUFFER_SIZE`); a longer one is cut.
    public static let maximumSize = 2048

    public init?(_ bytes: some Collection<UInt8>) {
        let fields = bytes.prefix(Self.maximumSize).split(separator: 0, omittingEmptySubsequences: true)
        guard let header = fields.first, let at = header.firstIndex(of: UInt8(ascii: "@")) else { return nil }
        action = String(decoding: header[..<at], as: UTF8.self)
        devicePath = String(decoding: header[header.index(after: at)...], as: UTF8.self)
        guard !action.isEmpty, devicePath.hasPrefix("/") else { return nil }
        properties = [:]
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            properties[String(decoding: field[..<equals], as: UTF8.self)] = String(decoding: field[field.index(after: equals)...], as: UTF8.self)
        }
        // The action is said twice; a message whose two do not agree is not the kernel's.
        if let said = properties["ACTION"], said != action { return nil }
    }

    /// The drm device's node this message removes (`/dev/dri/card0`), if it removes one.
    public var removedDRMNode: String? {
        guard action == "remove", properties["SUBSYSTEM"] == "drm", let name = properties["DEVNAME"],
            name.hasPrefix("dri/"), !name.contains("..")
        else { return nil }
        return "/dev/" + name
    }

    /// A drm device's connectors may have changed (`HOTPLUG=1`), or a drm device came or went.
    public var isDRMChange: Bool {
        properties["SUBSYSTEM"] == "drm" && (properties["HOTPLUG"] == "1" || action == "add" || action == "remove")
    }
}
