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
