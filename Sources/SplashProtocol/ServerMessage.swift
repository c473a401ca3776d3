public import SplashJSON

/// The protocol version this build speaks.
public let protocolVersion = 1

/// The version of splashd.
public let splashdVersion = "0.1.0"

/// A server → client line of the socket protocol.
public enum ServerMessage: Sendable, Equatable {
    case hello(protocol: Int, version: String)
    case ok(id: JSONValue?)
    case error(ProtocolError)
    case state(StateMessage)
    /// The answer to a report command: `data` for programs, `text` for terminals (when it has one).
    case result(id: JSONValue?, command: String, data: JSONValue, text: String?)
    /// A broadcast after `finished`, e.g. `{"type":"event","event":"action","name":"feedback-form"}`.
    case event(name: String, fields: [String: JSONValue])

    /// The message as one JSON line, without the trailing `\n`.
    public func encoded() -> String { String(decoding: line(), as: UTF8.self) }

    /// The message as UTF-8 bytes, without the trailing `\n`. A state is cut to the protocol's
    /// bound (`StateMessage.bounded`).
    public func line() -> [UInt8] {
        var writer = JSONWriter()
        switch self {
        case .state(let state): return state.bounded().line
        case .hello(let proto, let version):
            writer.object { w in
                w.key("type"); w.string("hello")
                w.key("protocol"); w.int(Int64(proto))
                w.key("version"); w.string(version)
            }
        case .ok(let id):
            writer.object { w in
                w.key("type"); w.string("ok")
                if let id { w.key("id"); w.value(id) }
            }
        case .error(let error):
            writer.object { w in
                w.key("type"); w.string("error")
                if let id = error.id { w.key("id"); w.value(id) }
                w.key("code"); w.string(error.code.rawValue)
                w.key("message"); w.string(error.message)
            }
        case .result(let id, let command, let data, let text):
            writer.object { w in
                w.key("type"); w.string("result")
                if let id { w.key("id"); w.value(id) }
                w.key("cmd"); w.string(command)
                w.key("data"); w.value(data)
                if let text { w.key("text"); w.string(text) }
            }
        case .event(let name, let fields):
            writer.object { w in
                w.key("type"); w.string("event")
                w.key("event"); w.string(name)
                for key in fields.keys.sorted() where key != "type" && key != "event" {
                    w.key(key); w.value(fields[key]!)
                }
            }
        }
        return writer.bytes
    }

    /// Parses one server line; nil when it is not a message of this protocol.
    public static func decode(_ line: some Collection<UInt8>) -> ServerMessage? {
        try? ServerMessage(json: JSONValue.parse(line))
    }

    /// Reads a server message from its JSON value: the one decoding path of every server line.
    public init(json: JSONValue) throws(WireError) {
        let object = try WireObject(json, what: "message")
        switch try object.string("type") {
        case "hello":
            self = .hello(protocol: Int(try object.int("protocol")), version: try object.string("version"))
        case "ok": self = .ok(id: object["id"])
        case "error":
            self = .error(
                ProtocolError(
                    code: ErrorCode(rawValue: try object.string("code")), message: try object.string("message"), id: object["id"]
                )
            )
        case "state": self = .state(try StateMessage(json: json))
        case "result":
            self = .result(
                id: object["id"], command: try object.string("cmd"), data: object["data"] ?? .null,
                text: try object.optionalString("text")
            )
        case "event":
            var fields = object.members
            fields["type"] = nil
            fields["event"] = nil
            self = .event(name: try object.string("event"), fields: fields)
        case let other: throw WireError("unknown message type \"\(other.prefix(64))\"")
        }
    }
}
