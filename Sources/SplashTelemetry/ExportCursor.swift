public import SplashCore
import SplashJSON

/// Which launches `splashd-otel` has exported: their ids, newest last, at most `capacity` of them
/// (the daemon's history holds 20, so an id falls out of the cursor long after its launch fell out
/// of the history).
///
/// Saved as `{"exported":["…",…]}` with `AtomicFile` after every export the collector
/// acknowledged, so a launch is never sent twice, across restarts too, and one the collector never
/// took is sent again until it does.
public struct ExportCursor: Sendable, Equatable {
    /// Ids kept.
    public static let capacity = 256

    /// Exported launch ids, oldest first.
    public private(set) var exported: [String] = []
    private var members: Set<String> = []

    public init(exported: [String] = []) {
        add(exported)
    }

    /// Why a cursor file could not be read.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads what `encoded()` writes.
    public init(bytes: some Collection<UInt8>) throws(ReadError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw ReadError(description: "not JSON: \(error)")
        }
        guard case .object(let object) = value, case .array(let ids)? = object["exported"] else {
            throw ReadError(description: "expected {\"exported\": [ids]}")
        }
        var strings: [String] = []
        for id in ids {
            guard case .string(let text) = id else { throw ReadError(description: "an exported id that is not a string") }
            strings.append(text)
        }
        self.init(exported: strings)
    }

    /// Whether `launch` was exported.
    public func contains(_ launch: String) -> Bool { members.contains(launch) }

    /// Records `launches` as exported, dropping the oldest beyond `capacity`.
    public mutating func add(_ launches: [String]) {
        for launch in launches where !members.contains(launch) {
            exported.append(launch)
            members.insert(launch)
        }
        if exported.count > Self.capacity {
            for old in exported.prefix(exported.count - Self.capacity) { members.remove(old) }
            exported.removeFirst(exported.count - Self.capacity)
        }
    }

    /// The finished launches of `records` not exported yet, oldest first.
    public func pending(in records: [LaunchRecord]) -> [LaunchRecord] {
        records.filter { $0.finishedAtMs != nil && !contains($0.launch) }
    }

    /// The cursor as the bytes of its file.
    public func encoded() -> [UInt8] {
        var w = JSONWriter()
        w.object { w in
            w.key("exported")
            w.array { w in for id in exported { w.string(id) } }
        }
        return w.bytes + [UInt8(ascii: "\n")]
    }
}
