import SplashJSON

/// A state line never exceeds the protocol's bound (`SocketDefaults.maxLineBytes`), and its texts
/// follow the theme's rule (`DisplayText`). First, always, every text a state shows — `message`,
/// the error's `message` and `detail`, the update's `message` and `error`, every step's `label`
/// and `reason` — is cleaned to the rule: line breaks become a space, other control characters,
/// the line separators and bidirectional overrides are dropped. Every state a client gets is made
/// here, so no source (a plugin, psplash's FIFO, RAUC, `splashctl update`, a failure) bypasses it.
/// Then the texts a plugin or a failure puts into a state are cut, with `…`, until it fits. What
/// is cut, in order:
///
/// 1. Always: `message`, the error's `message` and `detail`, the update's `message` and `error`
///    to `textBytes` bytes of UTF-8 each,
///    every step's `reason` to `reasonBytes`.
/// 2. When the line is still too long: the steps' reasons to 256, 128, 64, 32 and 0 bytes (an
///    empty reason is `…`), then the three texts to 256 and 64 bytes.
/// 3. Last, which a config `splashd check` accepts never needs (`StateBudget`): the steps' labels
///    dropped, then the steps.
extension StateMessage {
    /// The most bytes of UTF-8 kept of `message`, the error's `message` and its `detail`.
    public static let textBytes = 1024
    /// The most bytes of UTF-8 kept of a step's `reason`.
    public static let reasonBytes = 512

    /// The state cut to fit in `maxBytes` once encoded, and its encoding.
    public func bounded(maxBytes: Int = SocketDefaults.maxLineBytes) -> (state: StateMessage, line: [UInt8]) {
        var state = self
        state.cleanTexts()
        state.cutTexts(to: Self.textBytes)
        state.cutReasons(to: Self.reasonBytes)
        var line = state.encoded()
        if line.count <= maxBytes { return (state, line) }
        var cuts: [(inout StateMessage) -> Void] = [256, 128, 64, 32, 0].map { bound in { $0.cutReasons(to: bound) } }
        cuts += [256, 64].map { bound in { $0.cutTexts(to: bound) } }
        cuts.append { state in
            for index in state.steps.indices { state.steps[index].label = nil }
        }
        cuts.append { $0.steps = [] }
        for cut in cuts {
            cut(&state)
            line = state.encoded()
            if line.count <= maxBytes { break }
        }
        return (state, line)
    }

    private func encoded() -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// Every shown text cleaned to `DisplayText`'s rule.
    mutating func cleanTexts() {
        message = message.map(DisplayText.cleaned)
        if var error {
            error.message = DisplayText.cleaned(error.message)
            error.detail = error.detail.map(DisplayText.cleaned)
            self.error = error
        }
        if var update {
            update.message = update.message.map(DisplayText.cleaned)
            update.error = update.error.map(DisplayText.cleaned)
            self.update = update
        }
        for index in steps.indices {
            steps[index].label = steps[index].label.map(DisplayText.cleaned)
            steps[index].reason = steps[index].reason.map(DisplayText.cleaned)
        }
    }

    private mutating func cutTexts(to bytes: Int) {
        message = message.map { $0.cut(toUTF8Bytes: bytes) }
        if var error {
            error.message = error.message.cut(toUTF8Bytes: bytes)
            error.detail = error.detail.map { $0.cut(toUTF8Bytes: bytes) }
            self.error = error
        }
        if var update {
            update.message = update.message.map { $0.cut(toUTF8Bytes: bytes) }
            update.error = update.error.map { $0.cut(toUTF8Bytes: bytes) }
            self.update = update
        }
    }

    private mutating func cutReasons(to bytes: Int) {
        for index in steps.indices {
            steps[index].reason = steps[index].reason.map { $0.cut(toUTF8Bytes: bytes) }
        }
    }
}

extension String {
    /// The text itself when it has at most `bytes` bytes of UTF-8; otherwise its longest prefix
    /// of whole Unicode scalars that leaves room for `…` (3 bytes), then `…`.
    public func cut(toUTF8Bytes bytes: Int) -> String {
        guard utf8.count > bytes else { return self }
        var kept = 0
        var end = unicodeScalars.startIndex
        for index in unicodeScalars.indices {
            let size = UTF8.width(unicodeScalars[index])
            guard kept + size <= bytes - 3 else { break }
            kept += size
            end = unicodeScalars.index(after: index)
        }
        return String(unicodeScalars[..<end]) + "…"
    }
}

/// Whether a graph's states fit a line with room for what a launch puts into them, for
/// `splashd check`: every state lists every step with its id and label, and `bounded` keeps those
/// (it cuts reasons and messages first). A graph fits when its largest state does, each step with
/// a 32-byte reason and the texts at 256 bytes, with room for the destination (a route and a
/// sheet of `RoutePath.maximumLength`) and a request's `id`.
public enum StateBudget {
    /// The bytes a state needs beside its steps, at most.
    public static let fixedBytes: Int = {
        let text = String(repeating: "x", count: 256)
        let route = String(repeating: "x", count: RoutePath.maximumLength)
        var state = StateMessage(
            id: .string(String(repeating: "x", count: Request.maxIDBytes)), seq: UInt64(Int64.max),
            launch: String(repeating: "x", count: 64), phase: .dismissing, reason: .appExited, slow: true, progress: 0.123,
            message: text, elapsedMs: .max, etaMs: .max, steps: [],
            error: ErrorInfo(code: .appCrashLoop, message: text, step: nil, actions: [.retry, .continueOffline], detail: text),
            destination: Destination(screen: .onboarding, route: route, sheet: route, reviewPrompt: true)
        )
        state.mode = .update
        state.update = UpdateStatus(source: .splashctl, progress: 0.123, message: text, result: .failed, error: text)
        state.shutdown = .poweroff
        var writer = JSONWriter()
        state.write(to: &writer)
        return writer.bytes.count
    }()

    /// The bytes step `spec` takes in a state at most (with its comma).
    public static func bytes(of spec: StepSpec) -> Int {
        let step = StateMessage.Step(
            id: spec.id, status: .succeeded, attempt: 999_999, durationMs: .max, label: spec.label, critical: false,
            reason: String(repeating: "x", count: 32)
        )
        var writer = JSONWriter()
        StateMessage(seq: 0, launch: "", phase: .loading, slow: false, progress: 0, message: nil, elapsedMs: 0, steps: [step],
                     error: nil, destination: nil).write(to: &writer)
        var empty = JSONWriter()
        StateMessage(seq: 0, launch: "", phase: .loading, slow: false, progress: 0, message: nil, elapsedMs: 0, steps: [],
                     error: nil, destination: nil).write(to: &empty)
        return writer.bytes.count - empty.bytes.count + 1
    }

    /// The index of the first step of `steps` whose state no longer fits `maxBytes`, with the
    /// bytes the whole graph's state needs; nil when all fit.
    public static func overflow(_ steps: [StepSpec], maxBytes: Int = SocketDefaults.maxLineBytes) -> (index: Int, bytes: Int)? {
        // One step's id is the error's `step` too.
        var total = fixedBytes + (steps.map { $0.id.utf8.count * 2 }.max() ?? 0)
        var first: Int?
        for (index, spec) in steps.enumerated() {
            total += bytes(of: spec)
            if total > maxBytes, first == nil { first = index }
        }
        return first.map { ($0, total) }
    }
}
