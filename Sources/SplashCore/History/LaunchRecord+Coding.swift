public import SplashJSON

extension LaunchRecord {
    /// Why bytes could not be read as a record.
    public struct DecodingFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// A stable hash of the graph's shape: step ids, plugins and dependencies.
    ///
    /// 64-bit FNV-1a over a canonical text (steps sorted by id, each with its plugin and sorted
    /// dependencies), as 16 hex digits: the same graph gives the same fingerprint on every run and
    /// machine, whatever the order of the steps in the file. Labels, timeouts and `critical` do not
    /// change what a launch costs, so they are left out.
    public static func fingerprint(of graph: StepGraph) -> String {
        var canonical: [UInt8] = []
        for step in graph.steps.sorted(by: { $0.id < $1.id }) {
            canonical.append(contentsOf: step.id.utf8)
            canonical.append(0x1F)
            canonical.append(contentsOf: step.plugin.utf8)
            for dependency in Set(step.after).sorted() {
                canonical.append(0x1F)
                canonical.append(contentsOf: dependency.utf8)
            }
            canonical.append(0x1E)
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The record as one line of compact JSON (no newline), keys sorted.
    public func jsonLine() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.value(jsonValue)
        return writer.bytes
    }

    /// Reads a record from one line of JSON.
    public init(jsonLine bytes: some Collection<UInt8>) throws(DecodingFailure) {
        do {
            self = try JSONValueDecoder().decode(LaunchRecord.self, from: JSONReader.value(of: bytes))
        } catch {
            throw DecodingFailure(description: "not a launch record: \(error)")
        }
    }

    /// The record as a JSON value, for the wire (`records`): the same model and keys as the
    /// history file's line, with no bytes in between.
    public var jsonValue: JSONValue {
        // Our own value type always encodes.
        (try? JSONValueEncoder().encode(self)) ?? .object([:])
    }

    /// Reads a record from a JSON value (an element of the `records` report).
    public init(jsonValue: JSONValue) throws(DecodingFailure) {
        do {
            self = try JSONValueDecoder().decode(LaunchRecord.self, from: jsonValue)
        } catch {
            throw DecodingFailure(description: "not a launch record: \(error)")
        }
    }
}
