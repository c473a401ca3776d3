/// What an updater said: the `update` command's one input (`splashctl update`), and what the
/// daemon reads psplash's FIFO and RAUC's progress into; `ModeMachine` takes it.
public enum UpdateInput: Sendable, Equatable {
    /// 0...1 (clamped; not a number is ignored).
    case progress(Double)
    /// The updater's message; empty clears it.
    case message(String)
    /// A progress and the message that goes with it (RAUC's `Progress`), as one input: a state
    /// never pairs the one with another's.
    case step(Double, message: String)
    /// The updater ended: `succeeded` or `failed` (with its error).
    case ended(UpdateStatus.Result, error: String?)
    /// psplash's `QUIT`: the update's view goes at once.
    case quit
}
