public import SplashJSON

/// What phase `error` carries: why, and what the user can do.
public struct ErrorInfo: Sendable, Equatable {
    /// User actions offered in the error screen.
    public enum UserAction: String, Sendable {
        case retry
        case continueOffline = "continue-offline"
    }

    public var code: ErrorCode
    /// What a renderer shows.
    public var message: String
    /// The step that caused it, if any.
    public var step: String?
    public var actions: [UserAction]
    /// Detail for operators (the underlying failure); renderers need not show it.
    public var detail: String?

    public init(code: ErrorCode, message: String, step: String?, actions: [UserAction], detail: String? = nil) {
        self.code = code
        self.message = message
        self.step = step
        self.actions = actions
        self.detail = detail
    }

    /// The one text for the codes that have their own (the designs'): `network` "Unable to
    /// connect", `timeout` "This is taking longer than expected". Renderers show the state's
    /// `message`; a theme may put its own words in their place.
    public static func userMessage(for code: ErrorCode) -> String? {
        switch code {
        case .network: "Unable to connect"
        case .timeout: "This is taking longer than expected"
        case .appCrashLoop: "The app keeps stopping"
        default: nil
        }
    }

    /// Writes `{"code","message","step","actions"[,"detail"]}`.
    public func write(to w: inout JSONWriter) {
        w.object { w in
            w.key("code"); w.string(code.rawValue)
            w.key("message"); w.string(message)
            w.key("step"); w.string(step)
            w.key("actions"); w.array { w in for action in actions { w.string(action.rawValue) } }
            if let detail { w.key("detail"); w.string(detail) }
        }
    }

    /// Reads what `write(to:)` writes. Actions this build does not know are left out.
    public init(json: JSONValue) throws(WireError) {
        let object = try WireObject(json, what: "error")
        code = ErrorCode(rawValue: try object.string("code"))
        message = try object.string("message")
        step = try object.optionalString("step")
        actions = try object.array("actions") { value throws(WireError) in value.stringValue.flatMap(UserAction.init(rawValue:)) }
            .compactMap(\.self)
        detail = try object.optionalString("detail")
    }
}
