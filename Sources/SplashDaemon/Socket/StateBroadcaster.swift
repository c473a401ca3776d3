public import NIOCore
import NIOConcurrencyHelpers
import SplashCore
public import SplashProtocol

/// One published state, encoded once for every subscriber.
public struct StateLine: Sendable {
    public var message: StateMessage
    /// The JSON line including its `\n`.
    public var bytes: ByteBuffer
    public var seq: UInt64 { message.seq }
}

/// Something that receives every published state and event (a socket connection).
public protocol StateSubscriber: AnyObject, Sendable {
    /// A new state. Called from the publisher's context; hop to your own.
    func deliver(state: StateLine)
    /// A broadcast event line (with its `\n`).
    func deliver(event: ByteBuffer)
}

/// Fans states out to subscribers: encodes each state once and hands the same bytes to all.
///
/// It never waits for a subscriber: delivery only enqueues, and each connection keeps at most the
/// latest state it could not write yet.
public final class StateBroadcaster: Sendable {
    private struct Storage {
        var latest: StateLine?
        var subscribers: [ObjectIdentifier: any StateSubscriber] = [:]
        var observers: [Int: AsyncStream<StateMessage>.Continuation] = [:]
        var nextObserver = 0
    }

    private let storage = NIOLockedValueBox(Storage())
    private let allocator = ByteBufferAllocator()

    public init() {}

    /// The latest published state.
    public var latest: StateLine? { storage.withLockedValue { $0.latest } }

    /// Publishes `state` to every subscriber and observer.
    public func publish(_ state: StateMessage) {
        var bytes = allocator.buffer(capacity: 512)
        bytes.writeBytes(ServerMessage.state(state).line())
        bytes.writeInteger(UInt8(ascii: "\n"))
        let line = StateLine(message: state, bytes: bytes)
        let (subscribers, observers) = storage.withLockedValue { storage in
            storage.latest = line
            return (Array(storage.subscribers.values), Array(storage.observers.values))
        }
        for subscriber in subscribers { subscriber.deliver(state: line) }
        for observer in observers { observer.yield(state) }
    }

    /// Sends an event to every subscriber.
    public func broadcast(event: ServerMessage) {
        var bytes = allocator.buffer(capacity: 128)
        bytes.writeBytes(event.line())
        bytes.writeInteger(UInt8(ascii: "\n"))
        let subscribers = storage.withLockedValue { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.deliver(event: bytes) }
    }

    /// Adds a subscriber; returns the current state, which it should be sent first.
    public func subscribe(_ subscriber: any StateSubscriber) -> StateLine? {
        storage.withLockedValue { storage in
            storage.subscribers[ObjectIdentifier(subscriber)] = subscriber
            return storage.latest
        }
    }

    public func unsubscribe(_ subscriber: any StateSubscriber) {
        _ = storage.withLockedValue { $0.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) }
    }

    /// In-process observers (the systemd notifier, tests): the current state, then every change.
    /// A slow observer keeps the newest 256 states.
    public func observe() -> AsyncStream<StateMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: StateMessage.self, bufferingPolicy: .bufferingNewest(256))
        let id = storage.withLockedValue { storage in
            let id = storage.nextObserver
            storage.nextObserver += 1
            storage.observers[id] = continuation
            if let latest = storage.latest { continuation.yield(latest.message) }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLockedValue { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }
}
