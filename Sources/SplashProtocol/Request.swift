public import SplashJSON

/// A client → server line of the socket protocol (version 1).
public struct Request: Sendable, Equatable {
    /// What the client asks for.
    public enum Command: Sendable, Equatable {
        case ping
        case state
        case subscribe
        /// `{"cmd":"subscribe","ticks":false}`: as `subscribe`, without the states published only
        /// because time passed (the 100 ms ticks while loading, which move `elapsed_ms`, the
        /// steps' `duration_ms`, and a progress that tracks time): a state comes when anything
        /// else changes. For a renderer that shows neither, so it sleeps while nothing changes.
        case subscribeWithoutTicks
        case retry
        case continueOffline
        case dismissed
        /// Completes a `signal` step.
        case complete(step: String)
        /// A quick action.
        case action(name: String)
        /// A deep link.
        case open(url: String)
        case relaunch
        /// The app hands over a new session (stored, never echoed).
        case signIn(session: [String: JSONValue])
        case signOut
        /// Read-only reports about the last launch (`result` replies).
        case report(Report)
        /// The app's heartbeat (`[app] heartbeat`, design §14).
        case alive
        /// The app says where it is now, e.g. `orders/42`: a launch after it exits or hangs goes back there.
        case route(String)
        /// The app became active again or the display woke: check the session without the splash.
        case resume
        /// An updater's word (`splashctl update`): the update mode (`ModeMachine`).
        case update(UpdateInput)
        /// The device goes down: the shutdown view, for good.
        case shutdown(ShutdownKind)

        /// The `cmd` string on the wire.
        public var name: String {
            switch self {
            case .ping: "ping"
            case .state: "state"
            case .subscribe, .subscribeWithoutTicks: "subscribe"
            case .retry: "retry"
            case .continueOffline: "continue-offline"
            case .dismissed: "dismissed"
            case .complete: "complete"
            case .action: "action"
            case .open: "open"
            case .relaunch: "relaunch"
            case .signIn: "sign-in"
            case .signOut: "sign-out"
            case .report(let report): report.rawValue
            case .alive: "alive"
            case .route: "route"
            case .resume: "resume"
            case .update: "update"
            case .shutdown: "shutdown"
            }
        }

        /// Whether only control peers (root, the daemon's uid, `control_group`) may send it.
        public var needsControl: Bool {
            switch self {
            case .ping, .state, .subscribe, .subscribeWithoutTicks, .report: false
            default: true
            }
        }
    }

    /// Echoed in the reply when present.
    public var id: JSONValue?
    /// The most bytes a request's `id` takes as JSON: the reply that echoes it stays within the
    /// line bound (`StateMessage.bounded`).
    public static let maxIDBytes = 256
    public var command: Command

    public init(_ command: Command, id: JSONValue? = nil) {
        self.command = command
        self.id = id
    }

    /// Parses one line (without its `\n`). Errors are `bad-request` replies, with the id when one was readable.
    public static func parse(_ line: some Collection<UInt8>) -> Result<Request, ProtocolError> {
        let object: [String: JSONValue]
        do {
            guard let members = try JSONValue.parse(line).objectValue else {
                return .failure(.badRequest("expected a JSON object"))
            }
            object = members
        } catch {
            return .failure(.badRequest(error.message))
        }
        let id = object["id"]
        if let id {
            var writer = JSONWriter()
            writer.value(id)
            // Echoed in every reply, a state among them: bounded so the reply fits a line.
            guard writer.bytes.count <= maxIDBytes else {
                return .failure(.badRequest("\"id\" is \(writer.bytes.count) bytes of JSON; at most \(maxIDBytes)"))
            }
        }
        func fail(_ message: String) -> Result<Request, ProtocolError> {
            .failure(ProtocolError(code: .badRequest, message: message, id: id))
        }
        guard let cmd = object["cmd"] else { return fail("missing \"cmd\"") }
        guard let name = cmd.stringValue else { return fail("\"cmd\" must be a string") }
        func text(_ key: String) -> String? {
            guard let value = object[key]?.stringValue, !value.isEmpty else { return nil }
            return value
        }
        let command: Command
        switch name {
        case "ping": command = .ping
        case "state": command = .state
        case "subscribe":
            switch object["ticks"] {
            case nil, .bool(true)?: command = .subscribe
            case .bool(false)?: command = .subscribeWithoutTicks
            default: return fail("\"ticks\" must be true or false")
            }
        case "retry": command = .retry
        case "continue-offline": command = .continueOffline
        case "dismissed": command = .dismissed
        case "relaunch": command = .relaunch
        case "sign-out": command = .signOut
        case "alive": command = .alive
        case "resume": command = .resume
        case "route":
            guard let route = object["route"]?.stringValue else { return fail("route needs a string \"route\"") }
            command = .route(route)
        case "complete":
            guard let step = text("step") else { return fail("complete needs a string \"step\"") }
            command = .complete(step: step)
        case "action":
            guard let action = text("name") else { return fail("action needs a string \"name\"") }
            command = .action(name: action)
        case "open":
            guard let url = text("url") else { return fail("open needs a string \"url\"") }
            command = .open(url: url)
        case "update":
            switch parseUpdate(object) {
            case .success(let input): command = .update(input)
            case .failure(let error): return fail(error.message)
            }
        case "shutdown":
            guard let kind = object["kind"]?.stringValue.flatMap(ShutdownKind.init(rawValue:)) else {
                return fail("shutdown needs \"kind\": \"poweroff\" or \"reboot\"")
            }
            command = .shutdown(kind)
        case "sign-in":
            guard let session = object["session"]?.objectValue else {
                return fail("sign-in needs an object \"session\"")
            }
            command = .signIn(session: session)
        default:
            guard let report = Report(rawValue: name) else { return fail("unknown cmd \"\(name.prefix(64))\"") }
            command = .report(report)
        }
        return .success(Request(command, id: id))
    }

    /// The request as one JSON line, without the trailing `\n`.
    public func encoded() -> String {
        var object: [String: JSONValue] = ["cmd": .string(command.name)]
        if let id { object["id"] = id }
        switch command {
        case .complete(let step): object["step"] = .string(step)
        case .action(let name): object["name"] = .string(name)
        case .open(let url): object["url"] = .string(url)
        case .signIn(let session): object["session"] = .object(session)
        case .route(let route): object["route"] = .string(route)
        case .subscribeWithoutTicks: object["ticks"] = .bool(false)
        case .shutdown(let kind): object["kind"] = .string(kind.rawValue)
        case .update(.progress(let fraction)): object["progress"] = .number(fraction)
        case .update(.message(let text)): object["message"] = .string(text)
        case .update(.step(let fraction, let text)):
            object["progress"] = .number(fraction)
            object["message"] = .string(text)
        case .update(.ended(let result, let error)):
            object["result"] = .string(result.rawValue)
            if let error { object["error"] = .string(error) }
        case .update(.quit): object["clear"] = .bool(true)
        default: break
        }
        var writer = JSONWriter()
        writer.value(.object(object))
        return writer.string
    }
}

extension Request {
    /// An `update` command's one input: `progress` (0…1), `message`, both together (one state
    /// shows them as a pair), `result` (`succeeded` or `failed`, with an optional `error`), or
    /// `clear: true` (the view goes at once).
    struct UpdateError: Error { var message: String }

    static func parseUpdate(_ object: [String: JSONValue]) -> Result<UpdateInput, UpdateError> {
        let given = ["progress", "message", "result", "clear"].filter { object[$0] != nil }
        if given == ["progress", "message"] {
            return parseUpdate(["progress": object["progress"]!]).flatMap { progress in
                parseUpdate(["message": object["message"]!]).map { message in
                    guard case .progress(let fraction) = progress, case .message(let text) = message else { return progress }
                    return .step(fraction, message: text)
                }
            }
        }
        guard given.count == 1, let key = given.first else {
            return .failure(UpdateError(message: "update needs one of \"progress\", \"message\" (or both), \"result\" or \"clear\""))
        }
        switch key {
        case "progress":
            guard let fraction = object["progress"]?.numberValue, fraction.isFinite, (0...1).contains(fraction) else {
                return .failure(UpdateError(message: "\"progress\" must be a number from 0 to 1"))
            }
            return .success(.progress(fraction))
        case "message":
            guard let text = object["message"]?.stringValue else { return .failure(UpdateError(message: "\"message\" must be a string")) }
            return .success(.message(text))
        case "result":
            guard let name = object["result"]?.stringValue, let result = UpdateStatus.Result(rawValue: name), result != .running else {
                return .failure(UpdateError(message: "\"result\" must be \"succeeded\" or \"failed\""))
            }
            switch object["error"] {
            case nil, .null?: return .success(.ended(result, error: nil))
            case .string(let error)?: return .success(.ended(result, error: error))
            default: return .failure(UpdateError(message: "\"error\" must be a string"))
            }
        default:
            guard object["clear"] == .bool(true) else { return .failure(UpdateError(message: "\"clear\" must be true")) }
            return .success(.quit)
        }
    }
}

/// The read-only reports: each answered by a `result` message.
public enum Report: String, Sendable, Equatable, CaseIterable {
    /// Steps of the last launch, slowest first.
    case blame
    /// The chain of steps that decided when the splash could be dismissed.
    case criticalChain = "critical-chain"
    /// An SVG Gantt chart of the last launch.
    case plot
    /// The configured graph as Graphviz DOT.
    case graph
    /// The last launches, one line each.
    case history
    /// The last launches' full records (`LaunchRecord`'s JSON, oldest first): what an exporter
    /// such as `splashd-otel` sends on.
    case records
}

/// An `error` reply: a code and a human-readable message.
public struct ProtocolError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    public var id: JSONValue?

    public init(code: ErrorCode, message: String, id: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }

    static func badRequest(_ message: String) -> ProtocolError {
        ProtocolError(code: .badRequest, message: message)
    }
}
