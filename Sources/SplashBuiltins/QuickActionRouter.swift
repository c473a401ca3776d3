public import SplashCore

/// Decides where a quick action or deep link goes, from a `quick-action` step's options.
///
/// Options:
/// - `scheme` (string, e.g. `"kiosk"`): the deep-link scheme, compared case-insensitively. Without
///   it no deep link is accepted.
/// - `routes` (list of paths): the deep-link paths accepted. `"/orders"` matches exactly that
///   path; a trailing `/*` matches everything below (`"/orders/*"` matches `/orders/42` and
///   `/orders/42/items`, not `/orders`). No other patterns. Paths are case-sensitive and must
///   not end with `/`. Needs `scheme`.
/// - `actions` (table): action name → `{ route = "/…", sheet = "…" }`, at least one of the two.
///   Action routes need not be listed in `routes`.
///
/// How a link maps to a route: `kiosk://orders/42` → `/orders/42` (the host is the first path
/// segment, as in mobile deep links); `kiosk:///orders/42` and `kiosk:/orders/42` → the same;
/// `kiosk://` → `/`. The query and fragment are not used for routing and are left out of the
/// resolution (they may carry tokens). Userinfo, ports, empty, `.` or `..` segments, spaces and
/// other characters not allowed in a URL path make a link unknown.
///
/// The daemon uses the router after `finished` too, to accept or refuse `action` / `open`
/// commands and to broadcast the accepted ones.
public struct QuickActionRouter: Sendable, Equatable {
    /// Where an accepted action or link goes.
    public struct Target: Sendable, Equatable {
        public var route: String?
        public var sheet: String?

        public init(route: String? = nil, sheet: String? = nil) {
            self.route = route
            self.sheet = sheet
        }
    }

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

    /// A bad option, with the option's name.
    public struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
        public var option: String
        public var message: String

        public init(option: String, message: String) {
            self.option = option
            self.message = message
        }

        public var description: String { "quick-action: option '\(option)' \(message)" }

        /// The error as a step failure: code `bad-options`, not retryable.
        public var stepFailure: StepFailure {
            StepFailure(code: .badOptions, message: description, retryable: false)
        }
    }

    /// The deep-link scheme, lowercased; nil when links are not accepted.
    public let scheme: String?
    /// The accepted link paths, as configured.
    public let routes: [String]
    /// The quick actions by name.
    public let actions: [String: Target]

    /// The option names the router reads; other options are ignored here.
    public static let routerOptions: Set<String> = ["scheme", "routes", "actions"]

    /// Builds the router from a step's options; throws naming the first bad option.
    public init(options: [String: JSONValue]) throws(OptionError) {
        var scheme: String?
        switch options["scheme"] {
        case nil: scheme = nil
        case .string(let value)? where Self.scheme(of: value + ":") == value[...]: scheme = value.lowercased()
        case let other?:
            throw OptionError(option: "scheme", message: "must be a URL scheme such as \"kiosk\" (letters, digits, '+', '-', '.'), not \(Self.show(other))")
        }
        var routes: [String] = []
        switch options["routes"] {
        case nil: break
        case .array(let items)?:
            for item in items {
                guard case .string(let route) = item else {
                    throw OptionError(option: "routes", message: "must be a list of paths, not contain \(Self.show(item))")
                }
                if let problem = Self.problem(withRoutePattern: route) {
                    throw OptionError(option: "routes", message: "has a bad path \(Self.show(item)): \(problem)")
                }
                routes.append(route)
            }
            if !routes.isEmpty && scheme == nil {
                throw OptionError(option: "routes", message: "needs option 'scheme' (the scheme of the deep links)")
            }
        case let other?:
            throw OptionError(option: "routes", message: "must be a list of paths such as [\"/orders\", \"/orders/*\"], not \(Self.show(other))")
        }
        var actions: [String: Target] = [:]
        switch options["actions"] {
        case nil: break
        case .object(let table)?:
            for (name, entry) in table {
                actions[name] = try Self.target(name: name, entry: entry)
            }
        case let other?:
            throw OptionError(option: "actions", message: "must be a table of action name → { route, sheet }, not \(Self.show(other))")
        }
        self.scheme = scheme
        self.routes = routes
        self.actions = actions
    }

    /// Where `input` goes; nil for an unknown action, another scheme, an unlisted path or garbage.
    public func resolve(_ input: QuickInput) -> Resolution? {
        switch input {
        case .action(let name):
            guard let target = actions[name] else { return nil }
            return Resolution(name: name, route: target.route, sheet: target.sheet)
        case .open(let url):
            guard let scheme, let link = Self.parseLink(url, scheme: scheme), accepts(path: link.path) else { return nil }
            return Resolution(url: link.address, route: link.path)
        }
    }

    /// Whether a link to `path` is accepted by `routes`.
    public func accepts(path: String) -> Bool {
        routes.contains { pattern in
            if pattern.hasSuffix("/*") {
                let prefix = pattern.dropLast()
                return path.count > prefix.count && path.hasPrefix(prefix)
            }
            return pattern == path
        }
    }

    private static func target(name: String, entry: JSONValue) throws(OptionError) -> Target {
        let option = "actions"
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == ":" }) else {
            throw OptionError(option: option, message: "has a bad action name \(show(.string(name))): it must be non-empty, without spaces or ':'")
        }
        guard case .object(let fields) = entry else {
            throw OptionError(option: option, message: "entry '\(name)' must be a table { route, sheet }, not \(show(entry))")
        }
        if let unknown = fields.keys.filter({ $0 != "route" && $0 != "sheet" }).sorted().first {
            throw OptionError(option: option, message: "entry '\(name)' has an unknown key '\(unknown)' (known: route, sheet)")
        }
        var target = Target()
        switch fields["route"] {
        case nil: break
        case .string(let route)? where problem(withPath: route) == nil: target.route = route
        case let other?:
            let why = other.stringValue.flatMap { problem(withPath: $0) } ?? "not a string"
            throw OptionError(option: option, message: "entry '\(name)' has a bad route \(show(other)): \(why)")
        }
        switch fields["sheet"] {
        case nil: break
        case .string(let sheet)? where !sheet.isEmpty && !sheet.contains(where: \.isWhitespace): target.sheet = sheet
        case let other?:
            throw OptionError(option: option, message: "entry '\(name)' has a bad sheet \(show(other)): a non-empty name without spaces")
        }
        guard target.route != nil || target.sheet != nil else {
            throw OptionError(option: option, message: "entry '\(name)' needs a route or a sheet")
        }
        return target
    }

    static func show(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }
}
