import SplashProtocol
import Synchronization
import SplashCore

/// A quick action or deep link, as received.
public enum QuickInput: Sendable, Equatable, Hashable {
    /// A quick action by name (`{"cmd":"action","name":"NAME"}`).
    case action(String)
    /// A deep link (`{"cmd":"open","url":"URL"}`).
    case open(String)

    /// Reads one spool file's text: a URL when it starts with a scheme (`kiosk:`), else an action name.
    ///
    /// Surrounding whitespace is trimmed; nil when nothing is left.
    public init?(spoolText text: String) {
        let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        guard !trimmed.isEmpty else { return nil }
        let value = String(trimmed)
        self = RoutePath.scheme(of: value) != nil ? .open(value) : .action(value)
    }

    /// The action name or the URL.
    public var text: String {
        switch self {
        case .action(let name): name
        case .open(let url): url
        }
    }
}

/// Where the daemon posts `action` / `open` commands received while a launch is loading.
///
/// The `quick-action` step drains it when it runs; commands count as newer than any spool file.
/// It keeps the newest `capacity` inputs (older ones are dropped), so a flood of commands cannot
/// grow memory without bound. Synchronous, so the launch controller posts and resets inside one
/// turn of its loop, in the order its inputs came.
public final class QuickActionInbox: Sendable {
    /// The most inputs kept.
    public let capacity: Int
    private let inputs = Mutex<[QuickInput]>([])

    /// Creates an empty inbox keeping at most `capacity` inputs.
    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// Queues `input` for the next run of the `quick-action` step.
    public func post(_ input: QuickInput) {
        inputs.withLock { inputs in
            inputs.append(input)
            if inputs.count > capacity { inputs.removeFirst(inputs.count - capacity) }
        }
    }

    /// Takes every queued input, oldest first, and leaves the inbox empty.
    public func drain() -> [QuickInput] {
        inputs.withLock { inputs in
            defer { inputs = [] }
            return inputs
        }
    }

    /// Forgets queued inputs (a new launch begins).
    public func reset() {
        inputs.withLock { $0 = [] }
    }

    /// The number of queued inputs.
    public var count: Int { inputs.withLock { $0.count } }
}
