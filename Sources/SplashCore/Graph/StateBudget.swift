import SplashJSON
public import SplashProtocol

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
