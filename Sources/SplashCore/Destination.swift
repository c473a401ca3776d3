/// Where the app goes after the splash.
public struct Destination: Sendable, Equatable, Codable {
    /// The first screen.
    public enum Screen: String, Sendable, Codable {
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

    enum CodingKeys: String, CodingKey {
        case screen, route, sheet
        case reviewPrompt = "review_prompt"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(screen, forKey: .screen)
        try container.encode(route, forKey: .route)
        try container.encode(sheet, forKey: .sheet)
        try container.encode(reviewPrompt, forKey: .reviewPrompt)
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
