/// An input device as the renderer matches it to an output: its node, its name, what udev says
/// of it, and its physical size.
public struct InputDeviceInfo: Sendable, Equatable {
    /// `/dev/input/event3`.
    public var node: String
    /// The kernel's name of it: `QEMU Virtio Tablet`, `ILITEK ILITEK-TP`.
    public var name = ""
    /// udev's `WL_OUTPUT` property: the output a rule says the device is on (as Weston and
    /// wlroots read it).
    public var outputName: String?
    /// udev's `ID_INPUT_TOUCHSCREEN`.
    public var isTouchscreen = false
    /// The device's size in millimetres (libinput's), 0 when it has none (a tablet without a
    /// resolution, a mouse).
    public var widthMM: Double = 0
    public var heightMM: Double = 0

    public init(node: String, name: String = "", outputName: String? = nil, isTouchscreen: Bool = false, widthMM: Double = 0,
                heightMM: Double = 0) {
        self.node = node
        self.name = name
        self.outputName = outputName
        self.isTouchscreen = isTouchscreen
        self.widthMM = widthMM
        self.heightMM = heightMM
    }
}

/// What the user did on an input device, in the terms the renderer acts on.
public enum InputEvent: Sendable, Equatable {
    /// A touch, or a pointer's button press, at this point of the device's area: 0...1 across
    /// and down, in the panel's own orientation (the buffer's, not the turned picture's).
    case press(x: Double, y: Double, device: InputDeviceInfo)
    /// Enter (or the keypad's, or space): the focused button.
    case activate
    /// Tab, or an arrow key: the next (or previous) button.
    case focusNext, focusPrevious
}

/// Which output an input device's presses belong to, in this order:
/// 1. the operator's `--touch DEVICE=OUTPUT` (DEVICE: the device's name or its node);
/// 2. udev's `WL_OUTPUT` property on the device (a udev rule, as for Weston and wlroots);
/// 3. a touch screen whose physical size is that of exactly one output (within 5 %, either way
///    round);
/// 4. the first output.
public struct TouchMapping: Sendable, Equatable {
    /// Device (name or node) → output name.
    public var overrides: [String: String]

    public init(overrides: [String: String] = [:]) {
        self.overrides = overrides
    }

    /// Reads `--touch` values: `DEVICE=OUTPUT`, the last `=` separating them (a device's name
    /// may hold one). Nil for a value without a device or an output.
    public static func parse(_ values: [String]) -> TouchMapping? {
        var overrides: [String: String] = [:]
        for value in values {
            guard let split = value.lastIndex(of: "=") else { return nil }
            let device = String(value[..<split]), output = String(value[value.index(after: split)...])
            guard !device.isEmpty, !output.isEmpty else { return nil }
            overrides[device] = output
        }
        return TouchMapping(overrides: overrides)
    }

    /// The output `device`'s presses land on, among `outputs` (nil when there is none).
    public func output(for device: InputDeviceInfo, among outputs: [RendererMachine.Output]) -> RendererMachine.Output? {
        func named(_ name: String?) -> RendererMachine.Output? { name.flatMap { n in outputs.first { $0.name == n } } }
        if let output = named(overrides[device.node] ?? overrides[device.name]) { return output }
        if let output = named(device.outputName) { return output }
        if device.isTouchscreen, device.widthMM > 0, device.heightMM > 0 {
            func near(_ a: Double, _ b: Int) -> Bool { b > 0 && abs(a - Double(b)) <= 0.05 * Double(b) }
            let sized = outputs.filter {
                (near(device.widthMM, $0.widthMM) && near(device.heightMM, $0.heightMM))
                    || (near(device.widthMM, $0.heightMM) && near(device.heightMM, $0.widthMM))
            }
            if sized.count == 1 { return sized[0] }
        }
        return outputs.first
    }
}
