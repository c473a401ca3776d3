import SplashBuiltins
import SplashCore
import SplashJSON
import Testing

@Suite("QuickActionRouter")
struct QuickActionRouterTests {
    typealias Resolution = QuickActionRouter.Resolution

    let router: QuickActionRouter

    init() throws {
        router = try Self.router([
            "scheme": "kiosk",
            // The design's form, and a leading `/` that is ignored.
            "routes": .array(["orders", "/orders/*", "/", "settings/wifi"]),
            "actions": .object([
                "feedback-form": .object(["sheet": "feedback-form"]),
                "new-order": .object(["route": "/orders/new", "sheet": "order-editor"]),
                "help": .object(["route": "help"]),
            ]),
            "spool": "ignored-by-the-router",
        ])
    }

    static func router(_ options: [String: JSONValue]) throws -> QuickActionRouter {
        QuickActionRouter(options: try QuickActionOptions(options: options))
    }

    @Test(arguments: [
        ("kiosk://orders/42", "orders/42"),  // the host is the first segment
        ("kiosk:///orders/42", "orders/42"),  // empty host
        ("kiosk:/orders/42", "orders/42"),  // no authority
        ("KIOSK://orders", "orders"),  // schemes are case-insensitive
        ("kiosk://orders/", "orders"),  // one trailing slash is dropped
        ("kiosk://orders/42/items", "orders/42/items"),  // `/*` matches everything below
        ("kiosk://orders/42?utm=x#top", "orders/42"),  // query and fragment are not routed
        ("kiosk://", ""),  // the root, listed as "/"
        ("kiosk:///", ""),
        ("kiosk://settings/wifi", "settings/wifi"),
        ("kiosk://orders/a%20b", "orders/a%20b"),  // percent-encoding stays as it is
    ])
    func acceptedLinks(url: String, route: String) {
        let resolution = router.resolve(.open(url))
        #expect(resolution?.route == route)
        #expect(resolution?.sheet == nil)
        #expect(resolution?.name == nil)
        #expect(resolution?.url?.contains("?") == false)
    }

    @Test(arguments: [
        "kiosk://settings",  // unlisted: only settings/wifi is
        "kiosk://settings/wifi/5g",  // exact routes do not match below
        "kiosk://Orders/42",  // paths are case-sensitive
        "https://orders/42",  // another scheme
        "kiosk-dev://orders",  // another scheme sharing a prefix
        "kiosk:orders/42",  // opaque: no path
        "kiosk://orders/../admin",
        "kiosk://orders/./42",
        "kiosk://orders//42",
        "kiosk:////orders",
        "kiosk://orders//",
        "kiosk://user@orders/42",
        "kiosk://orders:8080/42",
        "kiosk://orders/4 2",
        "kiosk://orders/%zz",
        "kiosk://orders/ü",
        "not a url",
        "orders/42",
        "",
        "://orders",
    ])
    func refusedLinks(url: String) {
        #expect(router.resolve(.open(url)) == nil)
    }

    @Test func actionsResolveToTheirRouteAndSheet() {
        #expect(router.resolve(.action("feedback-form")) == Resolution(name: "feedback-form", sheet: "feedback-form"))
        #expect(router.resolve(.action("new-order")) == Resolution(name: "new-order", route: "orders/new", sheet: "order-editor"))
        #expect(router.resolve(.action("help"))?.route == "help")  // action routes need not be listed
        #expect(router.resolve(.action("help"))?.action == "help")
        #expect(router.resolve(.action("unknown")) == nil)
        #expect(router.resolve(.action("kiosk://orders")) == nil)  // a name, not a link
    }

    @Test func withoutSchemeNoLinkIsAccepted() throws {
        let actionsOnly = try Self.router(["actions": .object(["help": .object(["sheet": "help"])])])
        #expect(actionsOnly.resolve(.open("kiosk://orders")) == nil)
        #expect(actionsOnly.resolve(.action("help"))?.sheet == "help")
        let empty = try Self.router([:])
        #expect(empty.resolve(.action("help")) == nil)
    }

    @Test(arguments: ["*", "/*"])
    func wildcardAloneMatchesEveryPathButTheRoot(pattern: String) throws {
        let any = try Self.router(["scheme": "kiosk", "routes": .array([.string(pattern)])])
        #expect(any.resolve(.open("kiosk://anything/at/all"))?.route == "anything/at/all")
        #expect(any.resolve(.open("kiosk://")) == nil)
    }

    /// Design §7's example: `routes = ["pokedex", "chat"]`, the reference app's `shipthatapp://pokedex`.
    @Test func specFormRoutesAndLinks() throws {
        let router = try Self.router(["scheme": "shipthatapp", "routes": .array(["pokedex", "chat"])])
        #expect(router.resolve(.open("shipthatapp://pokedex")) == Resolution(url: "shipthatapp://pokedex", route: "pokedex"))
        #expect(router.resolve(.open("shipthatapp://chat?room=1#top"))?.route == "chat")
        #expect(router.resolve(.open("shipthatapp:///pokedex"))?.route == "pokedex")
        #expect(router.resolve(.open("shipthatapp://pokedex/25")) == nil)
        // A leading `/` in a listed path is accepted and ignored.
        #expect(
            try QuickActionOptions(options: ["scheme": "kiosk", "routes": .array(["/orders/*", "/help"])])
                == QuickActionOptions(options: ["scheme": "kiosk", "routes": .array(["orders/*", "help"])])
        )
    }

    @Test func spoolTextIsALinkWhenItStartsWithAScheme() {
        #expect(QuickInput(spoolText: "  kiosk://orders/42\n") == .open("kiosk://orders/42"))
        #expect(QuickInput(spoolText: "feedback-form\r\n") == .action("feedback-form"))
        #expect(QuickInput(spoolText: "not a url: really") == .action("not a url: really"))
        #expect(QuickInput(spoolText: " \n\t") == nil)
    }
}
