import CLibinput
import CUdev
import Glibc
public import SplashScene

/// The input devices (`/dev/input/event*`) through libinput's path backend: touch screens,
/// absolute and relative pointers, keyboards. Read when its descriptor is readable.
public final class InputDevices {
    private let context: OpaquePointer
    private let interface: UnsafeMutablePointer<libinput_interface>
    /// The pixels a relative pointer's motion is counted against (the first output's buffer).
    public var width: Double
    public var height: Double
    /// A relative pointer's place, 0...1 across and down.
    private var pointerX = 0.5
    private var pointerY = 0.5
    public private(set) var devices: [String] = []
    private var suspended = false

    /// Opens every `event*` node in `directory` that libinput takes (perhaps none yet: early in
    /// boot they come later, through `add(_:)`); nil when libinput cannot be set up.
    public init?(directory: String = "/dev/input", width: Double, height: Double) {
        interface = .allocate(capacity: 1)
        interface.initialize(to: libinput_interface(
            open_restricted: { path, flags, _ in
                let fd = open(path!, flags | O_CLOEXEC)
                return fd < 0 ? -errno : fd
            },
            close_restricted: { fd, _ in _ = close(fd) }
        ))
        guard let context = libinput_path_create_context(interface, nil) else {
            interface.deallocate()
            return nil
        }
        self.context = context
        self.width = width
        self.height = height
        var names: [String] = []
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix("event") { names.append(name) }
            }
            closedir(dir)
        }
        for name in names.sorted() { add("\(directory)/\(name)") }
    }

    /// Adds a device plugged in (or made ready by udev) since; whether libinput took it.
    @discardableResult
    public func add(_ path: String) -> Bool {
        guard !devices.contains(path), libinput_path_add_device(context, path) != nil else { return false }
        devices.append(path)
        return true
    }

    /// Stops reading the devices (they are closed) while the app has the display: a touch on the
    /// app wakes the renderer for nothing. `resume()` opens them again.
    public func suspend() {
        guard !suspended else { return }
        libinput_suspend(context)
        suspended = true
    }

    public func resume() {
        guard suspended else { return }
        _ = libinput_resume(context)
        suspended = false
    }

    deinit {
        libinput_unref(context)
        interface.deallocate()
    }

    /// libinput's descriptor: readable when events wait.
    public var descriptor: Int32 { libinput_get_fd(context) }

    /// What the device of an event is (its name, udev's properties, its size).
    private func info(_ device: OpaquePointer?) -> InputDeviceInfo {
        guard let device else { return InputDeviceInfo(node: "") }
        var info = InputDeviceInfo(node: "", name: libinput_device_get_name(device).map { String(cString: $0) } ?? "")
        if let udev = libinput_device_get_udev_device(device) {
            defer { udev_device_unref(udev) }
            info.node = udev_device_get_devnode(udev).map { String(cString: $0) } ?? ""
            info.outputName = udev_device_get_property_value(udev, "WL_OUTPUT").map { String(cString: $0) }
            info.isTouchscreen = udev_device_get_property_value(udev, "ID_INPUT_TOUCHSCREEN").map { String(cString: $0) } == "1"
        }
        var w = 0.0, h = 0.0
        if libinput_device_get_size(device, &w, &h) == 0 {
            info.widthMM = w
            info.heightMM = h
        }
        return info
    }

    /// The events that have arrived, as the renderer acts on them.
    public func read() -> [InputEvent] {
        _ = libinput_dispatch(context)
        var events: [InputEvent] = []
        // Coordinates asked for across this many units, then made 0...1.
        let scale: UInt32 = 1 << 20
        while let event = libinput_get_event(context) {
            defer { libinput_event_destroy(event) }
            switch libinput_event_get_type(event) {
            case LIBINPUT_EVENT_TOUCH_DOWN:
                let touch = libinput_event_get_touch_event(event)
                events.append(.press(
                    x: libinput_event_touch_get_x_transformed(touch, scale) / Double(scale),
                    y: libinput_event_touch_get_y_transformed(touch, scale) / Double(scale),
                    device: info(libinput_event_get_device(event))))
            case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
                let pointer = libinput_event_get_pointer_event(event)
                pointerX = libinput_event_pointer_get_absolute_x_transformed(pointer, scale) / Double(scale)
                pointerY = libinput_event_pointer_get_absolute_y_transformed(pointer, scale) / Double(scale)
            case LIBINPUT_EVENT_POINTER_MOTION:
                let pointer = libinput_event_get_pointer_event(event)
                pointerX = min(max(pointerX + libinput_event_pointer_get_dx(pointer) / max(width, 1), 0), 1)
                pointerY = min(max(pointerY + libinput_event_pointer_get_dy(pointer) / max(height, 1), 0), 1)
            case LIBINPUT_EVENT_POINTER_BUTTON:
                let pointer = libinput_event_get_pointer_event(event)
                if libinput_event_pointer_get_button_state(pointer) == LIBINPUT_BUTTON_STATE_PRESSED {
                    events.append(.press(x: pointerX, y: pointerY, device: info(libinput_event_get_device(event))))
                }
            case LIBINPUT_EVENT_KEYBOARD_KEY:
                let keyboard = libinput_event_get_keyboard_event(event)
                guard libinput_event_keyboard_get_key_state(keyboard) == LIBINPUT_KEY_STATE_PRESSED else { break }
                switch Int32(libinput_event_keyboard_get_key(keyboard)) {
                case KEY_ENTER, KEY_KPENTER, KEY_SPACE: events.append(.activate)
                case KEY_TAB, KEY_RIGHT, KEY_DOWN: events.append(.focusNext)
                case KEY_LEFT, KEY_UP: events.append(.focusPrevious)
                default: break
                }
            default:
                break
            }
        }
        return events
    }
}
