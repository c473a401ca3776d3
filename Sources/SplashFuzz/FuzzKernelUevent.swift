import SplashKMS

/// A message on the kernel's uevent netlink group as `splashd-kms` reads it (`KernelUevent`):
/// only the kernel sends there, and the renderer still takes nothing from it on trust.
enum FuzzKernelUevent {
    /// No trap; an event read has an action and an absolute device path; a node it removes is
    /// one in `/dev/dri/` that climbs nowhere; and the event written back as the kernel writes
    /// it reads as the same event.
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let event = KernelUevent(bytes) else { return }
        FuzzFailure.check(!event.action.isEmpty && !event.action.contains("@"), "action \(event.action)")
        FuzzFailure.check(event.devicePath.hasPrefix("/"), "device path \(event.devicePath)")
        if let node = event.removedDRMNode {
            FuzzFailure.check(node.hasPrefix("/dev/dri/") && !node.contains(".."), "removed node \(node)")
            FuzzFailure.check(event.isDRMChange, "a drm removal that is no drm change")
        }
        var written = Array("\(event.action)@\(event.devicePath)".utf8) + [0]
        for (key, value) in event.properties.sorted(by: { $0.key < $1.key }) { written += Array("\(key)=\(value)".utf8) + [0] }
        // (Kept within the kernel's size: text that was not UTF-8 grows when written back.)
        guard written.count <= KernelUevent.maximumSize else { return }
        FuzzFailure.check(KernelUevent(written) == event, "written back, \(event) reads otherwise")
    }
}
