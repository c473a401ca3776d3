import CLibinput
import Glibc

/// What the user did on an input device, in the terms the renderer acts on.
public enum InputAction: Sendable, Equatable {
    /// A touch, or a pointer's button press, at this point of the first output (pixels, the
    /// buffer's own coordinates).
    case press(x: Double, y: Double)
    /// Enter (or the keypad's, or space): the focused button.
    case activate
    /// Tab, or an arrow key: the next (or previous) button.
    case focusNext, focusPrevious
}

/// The input devices (`/dev/input/event*`) through libinput's path backend: touch screens,
/// absolute and relative pointers, keyboards. Read when its descriptor is readable.
public final class InputDevices {
    private let context: OpaquePointer
    private let interface: UnsafeMutablePointer<libinput_interface>
    /// The size presses are reported in (the first output's buffer).
    public var width: Double
    public var height: Double
    private var pointerX: Double
    private var pointerY: Double
    public private(set) var devices: [String] = []

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
        pointerX = width / 2
        pointerY = height / 2
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

    deinit {
        libinput_unref(context)
        interface.deallocate()
    }

    /// libinput's descriptor: readable when events wait.
    public var descriptor: Int32 { libinput_get_fd(context) }

    /// The actions of the events that have arrived.
    public func read() -> [InputAction] {
        _ = libinput_dispatch(context)
        var actions: [InputAction] = []
        while let event = libinput_get_event(context) {
            defer { libinput_event_destroy(event) }
            switch libinput_event_get_type(event) {
            case LIBINPUT_EVENT_TOUCH_DOWN:
                let touch = libinput_event_get_touch_event(event)
                actions.append(.press(
                    x: libinput_event_touch_get_x_transformed(touch, UInt32(width)),
                    y: libinput_event_touch_get_y_transformed(touch, UInt32(height))))
            case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
                let pointer = libinput_event_get_pointer_event(event)
                pointerX = libinput_event_pointer_get_absolute_x_transformed(pointer, UInt32(width))
                pointerY = libinput_event_pointer_get_absolute_y_transformed(pointer, UInt32(height))
            case LIBINPUT_EVENT_POINTER_MOTION:
                let pointer = libinput_event_get_pointer_event(event)
                pointerX = min(max(pointerX + libinput_event_pointer_get_dx(pointer), 0), width - 1)
                pointerY = min(max(pointerY + libinput_event_pointer_get_dy(pointer), 0), height - 1)
            case LIBINPUT_EVENT_POINTER_BUTTON:
                let pointer = libinput_event_get_pointer_event(event)
                if libinput_event_pointer_get_button_state(pointer) == LIBINPUT_BUTTON_STATE_PRESSED {
                    actions.append(.press(x: pointerX, y: pointerY))
                }
            case LIBINPUT_EVENT_KEYBOARD_KEY:
                let keyboard = libinput_event_get_keyboard_event(event)
                guard libinput_event_keyboard_get_key_state(keyboard) == LIBINPUT_KEY_STATE_PRESSED else { break }
                switch Int32(libinput_event_keyboard_get_key(keyboard)) {
                case KEY_ENTER, KEY_KPENTER, KEY_SPACE: actions.append(.activate)
                case KEY_TAB, KEY_RIGHT, KEY_DOWN: actions.append(.focusNext)
                case KEY_LEFT, KEY_UP: actions.append(.focusPrevious)
                default: break
                }
            default:
                break
            }
        }
        return actions
    }
}
