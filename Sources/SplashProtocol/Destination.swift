public import SplashJSON

/// Where the app goes after the splash.
public struct Destination: Sendable, Equatable {
    /// The first screen.
    public enum Screen: String, Sendable {
        case home
        case onboarding
        case login
    }

    public var screen: Screen
    /// A deep-link target, e.g. `orders/42` (a path without its leading `/`, see `RoutePath`).
    public var route: String?
    /// A modal to open over the screen, e.g. from a quick action.
    public var sheet: String?
    /// Whether the app should ask for a review now.
    public var reviewPrompt: Bool

    public init(screen: Screen, route: String? = nil, sheet: String? = nil, reviewPrompt: Bool = false) {
        self.screen = screen
        self.route = route
        self.sheet = sheet
        self.reviewPrompt = reviewPrompt
    }

    /// Where the app was when it exited or hung (design §14): a launch that brings it back goes
    /// there again, when the launch decides the same screen.
    public struct Restoration: Sendable, Equatable {
        /// The screen the app was on (the last launch's).
        public var screen: Screen
        /// The route it last reported (`route`), already checked against the configuration.
        public var route: String?

        public init(screen: Screen, route: String?) {
            self.screen = screen
            self.route = route
        }
    }

    /// This destination with `place`'s route, when `place` is for the same screen and this
    /// destination has no route of its own (a deep link that came with the launch wins). A
    /// signed-in screen is never restored over `login`: the session is gone, and so is the route.
    public func restoring(_ place: Restoration?) -> Destination {
        guard let place, let route = place.route, place.screen == screen, self.route == nil else { return self }
        var restored = self
        restored.route = route
        return restored
    }

    /// Writes `{"screen","route","sheet","review_prompt"}`.
    public func write(to w: inout JSONWriter) {
        w.object { w in
            w.key("screen"); w.string(screen.rawValue)
            w.key("route"); w.string(route)
            w.key("sheet"); w.string(sheet)
            w.key("review_prompt"); w.bool(reviewPrompt)
        }
    }

    /// Reads what `write(to:)` writes.
    public init(json: JSONValue) throws(WireError) {
        let object = try WireObject(json, what: "destination")
        screen = try object.raw("screen", as: Screen.self)
        route = try object.optionalString("route")
        sheet = try object.optionalString("sheet")
        reviewPrompt = try object.optionalBool("review_prompt") ?? false
    }

    /// Decides the destination from the facts the steps found.
    ///
    /// Signed in (`authenticated: true`) → `home`; not signed in and `first_launch: true` →
    /// `onboarding`; not signed in otherwise → `login`. A graph without any step reporting
    /// `authenticated` has no sign-in at all, so it goes `home` (unless `first_launch` says
    /// onboarding). `route` / `sheet` and `review_prompt` are taken from the facts of the same names.
    public static func decide(from facts: Facts) -> Destination {
        let authenticated = facts["authenticated"]?.boolValue
        let firstLaunch = facts["first_launch"]?.boolValue ?? false
        let screen: Screen
        switch authenticated {
        case true?: screen = .home
        case false?: screen = firstLaunch ? .onboarding : .login
        case nil: screen = firstLaunch ? .onboarding : .home
        }
        return Destination(
            screen: screen,
            route: facts["route"]?.stringValue,
            sheet: facts["sheet"]?.stringValue,
            reviewPrompt: facts["review_prompt"]?.boolValue ?? false
        )
    }
}

/// A launch record in `history.jsonl` keeps its destination in the wire form: the same writer and
/// reader as a `state` message.
extension Destination: Codable {
    public init(from decoder: any Decoder) throws {
        do {
            try self.init(json: JSONValue(from: decoder))
        } catch let error as WireError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var writer = JSONWriter(capacity: 96)
        write(to: &writer)
        try JSONValue.parse(writer.bytes).encode(to: encoder)
    }
}
