public import SplashJSON
import SplashProtocol

/// The options of a `quick-action` step, checked.
///
/// | option | type | default |
/// |---|---|---|
/// | `scheme` | a URL scheme such as `"kiosk"`, compared case-insensitively | none: no deep link is accepted |
/// | `routes` | list of `RoutePath` patterns (`"pokedex"`, `"orders/*"`); needs `scheme` | `[]` |
/// | `actions` | table: action name → `{ route, sheet }`, at least one of the two | `{}` |
/// | `spool` | directory, relative to the state directory | `spool` |
///
/// A leading `/` in a listed path or an action route is accepted and dropped (`RoutePath`).
/// Action routes need not be listed in `routes`. Action names are non-empty, without spaces or
/// `:` (a name with a scheme would read as a link).
public struct QuickActionOptions: BuiltinPluginOptions {
    /// Where a quick action goes.
    public struct Target: Sendable, Equatable {
        /// The route, normalized (no leading `/`).
        public var route: String?
        /// The modal to open.
        public var sheet: String?

        /// Creates a target; `route` is taken as it is.
        public init(route: String? = nil, sheet: String? = nil) {
            self.route = route
            self.sheet = sheet
        }
    }

    public static let plugin = BuiltinPlugin.quickAction
    public static let knownOptions: Set<String> = ["scheme", "routes", "actions", "spool"]
    /// The spool directory used when `spool` is not set, relative to the state directory.
    public static let defaultSpool = "spool"

    /// The deep-link scheme, lowercased; nil when links are not accepted.
    public var scheme: String?
    /// The accepted link paths, as normalized `RoutePath` patterns (no leading `/`).
    public var routes: [String]
    /// The quick actions by name.
    public var actions: [String: Target]
    /// The spool directory, absolute or relative to the state directory.
    public var spool: String

    /// The options of a step that sets none: no links, no actions, the default spool.
    public init() {
        scheme = nil
        routes = []
        actions = [:]
        spool = Self.defaultSpool
    }

    /// Checks a `quick-action` step's raw options, throwing about the first bad one.
    public init(options: [String: JSONValue]) throws(OptionError) {
        let reader = try OptionReader(options, known: Self.knownOptions)
        self.init()
        switch reader["scheme"] {
        case nil: break
        case .string(let value)? where RoutePath.scheme(of: value + ":") == value[...]: scheme = value.lowercased()
        case let other?:
            throw .option(
                "scheme",
                "must be a URL scheme such as \"kiosk\" (letters, digits, '+', '-', '.'), not \(OptionError.show(other))"
            )
        }
        switch reader["routes"] {
        case nil: break
        case .array(let items)?:
            for item in items {
                guard case .string(let written) = item else {
                    throw .option("routes", "must be a list of paths, not contain \(OptionError.show(item))")
                }
                let route = RoutePath.normalized(written)
                if let problem = RoutePath.problem(withPattern: route) {
                    throw .option("routes", "has a bad path \(OptionError.show(item)): \(problem)")
                }
                routes.append(route)
            }
            if !routes.isEmpty && scheme == nil {
                throw .option("routes", "needs option 'scheme' (the scheme of the deep links)")
            }
        case let other?:
            throw .option("routes", "must be a list of paths such as [\"pokedex\", \"orders/*\"], not \(OptionError.show(other))")
        }
        switch reader["actions"] {
        case nil: break
        case .object(let table)?:
            for (name, entry) in table.sorted(by: { $0.key < $1.key }) {
                actions[name] = try Self.target(name: name, entry: entry)
            }
        case let other?:
            throw .option("actions", "must be a table of action name → { route, sheet }, not \(OptionError.show(other))")
        }
        switch reader["spool"] {
        case nil: break
        case .string(let value)? where !value.isEmpty: spool = value
        case let other?: throw .option("spool", "must be a directory path, not \(OptionError.show(other))")
        }
    }

    private static func target(name: String, entry: JSONValue) throws(OptionError) -> Target {
        let option = "actions"
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == ":" }) else {
            throw .option(
                option, "has a bad action name \(OptionError.show(.string(name))): it must be non-empty, without spaces or ':'"
            )
        }
        guard case .object(let fields) = entry else {
            throw .option(option, "entry '\(name)' must be a table { route, sheet }, not \(OptionError.show(entry))")
        }
        if let unknown = fields.keys.filter({ $0 != "route" && $0 != "sheet" }).sorted().first {
            throw .option(option, "entry '\(name)' has an unknown key '\(unknown)' (known: route, sheet)")
        }
        var target = Target()
        switch fields["route"] {
        case nil: break
        case .string(let route)? where RoutePath.problem(with: RoutePath.normalized(route)) == nil:
            target.route = RoutePath.normalized(route)
        case let other?:
            let why = other.stringValue.flatMap { RoutePath.problem(with: RoutePath.normalized($0)) } ?? "not a string"
            throw .option(option, "entry '\(name)' has a bad route \(OptionError.show(other)): \(why)")
        }
        switch fields["sheet"] {
        case nil: break
        case .string(let sheet)? where !sheet.isEmpty && !sheet.contains(where: \.isWhitespace): target.sheet = sheet
        case let other?:
            throw .option(option, "entry '\(name)' has a bad sheet \(OptionError.show(other)): a non-empty name without spaces")
        }
        guard target.route != nil || target.sheet != nil else {
            throw .option(option, "entry '\(name)' needs a route or a sheet")
        }
        return target
    }
}
