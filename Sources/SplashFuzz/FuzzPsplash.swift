import SplashCore
import SplashProtocol

/// psplash's FIFO: any bytes, in any pieces, read into commands and then into the update view.
enum FuzzPsplash {
    /// The first byte says where the rest is cut into reads (every `n + 1` bytes): the commands
    /// are the same as from one read; what waits is bounded; every command is within psplash's
    /// limits; the update view's progress stays within 0…1.
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        var whole = PsplashReader()
        let all = whole.feed(input)
        var pieces = PsplashReader()
        var items: [PsplashReader.Item] = []
        let step = Int(first) + 1
        var start = 0
        while start < input.count {
            items += pieces.feed(input[start..<min(start + step, input.count)])
            FuzzFailure.check(pieces.pendingBytes <= PsplashReader.maxCommandBytes, "\(pieces.pendingBytes) bytes kept waiting")
            start += step
        }
        FuzzFailure.check(items == all, "reads cut every \(step) bytes give other commands")
        // What the daemon hands on (`coalesced`) leaves the view as every command would.
        FuzzFailure.check(view(PsplashReader.coalesced(all)) == view(all), "coalescing changed the view")
        var modes = ModeMachine()
        var now = Duration.zero
        for item in all {
            guard case .command(let command) = item else { continue }
            now += .milliseconds(10)
            switch command {
            case .progress(let value): FuzzFailure.check((-100...100).contains(value), "PROGRESS \(value)")
            case .message(let text):
                FuzzFailure.check(text.utf8.count <= 3 * PsplashReader.maxCommandBytes, "a message of \(text.utf8.count) bytes")
            case .quit: break
            case .ignored(let reason): FuzzFailure.check(!reason.isEmpty, "ignored without a reason")
            }
            if let input = command.updateInput { _ = modes.update(input, from: .psplash, at: now) }
            if let update = modes.update { FuzzFailure.check((0...1).contains(update.progress), "progress \(update.progress)") }
            FuzzFailure.check(modes.mode == (modes.update == nil ? .launch : .update), "mode \(modes.mode) with update \(String(describing: modes.update))")
        }
    }

    /// The update view after `items`.
    static func view(_ items: [PsplashReader.Item]) -> UpdateStatus? {
        var modes = ModeMachine()
        for case .command(let command) in items {
            if let input = command.updateInput { _ = modes.update(input, from: .psplash, at: .zero) }
        }
        return modes.update
    }
}
