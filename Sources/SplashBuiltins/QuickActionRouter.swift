public import SplashCore
import SplashProtocol

/// Decides where a quick action or deep link goes, from a `quick-action` step's checked options
/// (`QuickActionOptions`: `scheme`, `routes`, `actions`; routes follow `RoutePath`).
///
/// How a link maps to a route: the path is what follows `scheme://`, without query, fragment or a
/// leading `/` (design §7): `shipthatapp://pokedex` → `pokedex`, `kiosk://orders/42` → `orders/42`
/// (the host is the first segment, as in mobile deep links); `kiosk:///orders/42` and
/// `kiosk:/orders/42` → the same; one trailing `/` is dropped; `kiosk://` is the root, `""`. The
/// query and fragment are not used for routing and are left out of the resolution (they may carry
/// tokens). Userinfo, ports, empty, `.` or `..` segments, spaces and other characters not allowed
/// in a URL path make a link unknown.
///
/// The daemon uses the router after `finished` too, to accept or refuse `action` / `open`
/// commands and to broadcast the accepted ones.
public struct QuickActionRouter: Sendable, Equatable {
    /// An accepted action or link and where it goes.
    public struct Resolution: Sendable, Equatable {
        /// The action's name; nil for a link.
        public var name: String?
        /// The link without query and fragment; nil for an action.
        public var url: String?
        public var route: String?
        public var sheet: String?

        public init(name: String? = nil, url: String? = nil, route: String? = nil, sheet: String? = nil) {
            self.name = name
            self.url = url
            self.route = route
            self.sheet = sheet
        }

        /// The action's name or the link: the `action` fact.
        public var action: String { name ?? url ?? "" }
    }

    /// The step's scheme, routes and actions.
    public let options: QuickActionOptions

    /// Builds the router from a step's checked options.
    public init(options: QuickActionOptions) {
        self.options = options
    }

    /// Where `input` goes; nil for an unknown action, another scheme, an unlisted path or garbage.
    public func resolve(_ input: QuickInput) -> Resolution? {
        switch input {
        case .action(let name):
            guard let target = options.actions[name] else { return nil }
            return Resolution(name: name, route: target.route, sheet: target.sheet)
        case .open(let url):
            guard let scheme = options.scheme, let link = Self.parseLink(url, scheme: scheme), accepts(path: link.path) else {
                return nil
            }
            return Resolution(url: link.address, route: link.path)
        }
    }

    /// Whether a link to `path` is accepted by `routes`.
    public func accepts(path: String) -> Bool {
        options.routes.contains { RoutePath.matches(path, pattern: $0) }
    }
}
