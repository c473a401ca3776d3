import SplashBuiltins
import SplashCore
import Testing

@Suite("QuickActionRouter")
struct QuickActionRouterTests {
    typealias Resolution = QuickActionRouter.Resolution

    let router: QuickActionRouter

    init() throws {
        router = try QuickActionRouter(options: [
            "scheme": "kiosk",
            "routes": .array(["/orders", "/orders/*", "/", "/settings/wifi"]),
            "actions": .object([
                "feedback-form": .object(["sheet": "feedback-form"]),
                "new-order": .object(["route": "/orders/new", "sheet": "order-editor"]),
                "help": .object(["route": "/help"]),
            ]),
            "spool": "ignored-by-the-router",
        ])
    }

    @Test(arguments: [
        ("kiosk://orders/42", "/orders/42"),  // the host is the first segment
        ("kiosk:///orders/42", "/orders/42"),  // empty host
        ("kiosk:/orders/42", "/orders/42"),  // no authority
        ("KIOSK://orders", "/orders"),  // schemes are case-insensitive
        ("kiosk://orders/", "/orders"),  // one trailing slash is dropped
        ("kiosk://orders/42/items", "/orders/42/items"),  // `/*` matches everything below
        ("kiosk://orders/42?utm=x#top", "/orders/42"),  // query and fragment are not routed
        ("kiosk://", "/"),
        ("kiosk://settings/wifi", "/settings/wifi"),
        ("kiosk://orders/a%20b", "/orders/a%20b"),  // percent-encoding stays as it is
    ])
    func acceptedLinks(url: String, route: String) {
        let resolution = router.resolve(.open(url))
        #expect(resolution?.route == route)
        #expect(resolution?.sheet == nil)
        #expect(resolution?.name == nil)
        #expect(resolution?.url?.contains("?") == false)
    }

    @Test(arguments: [
        "kiosk://settings",  // unlisted: only /settings/wifi is
        "kiosk://settings/wifi/5g",  // exact routes do not match below
        "kiosk://Orders/42",  // paths are case-sensitive
        "https://orders/42",  // another scheme
        "kiosk-dev://orders",  // another scheme sharing a prefix
        "kiosk:orders/42",  // opaque: no path
        "kiosk://orders/../admin",
        "kiosk://orders/./42",
        "kiosk://orders//42",
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
        #expect(router.resolve(.action("new-order")) == Resolution(name: "new-order", route: "/orders/new", sheet: "order-editor"))
        #expect(router.resolve(.action("help"))?.route == "/help")  // action routes need not be listed
        #expect(router.resolve(.action("help"))?.action == "help")
        #expect(router.resolve(.action("unknown")) == nil)
        #expect(router.resolve(.action("kiosk://orders")) == nil)  // a name, not a link
    }

    @Test func withoutSchemeNoLinkIsAccepted() throws {
        let actionsOnly = try QuickActionRouter(options: ["actions": .object(["help": .object(["sheet": "help"])])])
        #expect(actionsOnly.resolve(.open("kiosk://orders")) == nil)
        #expect(actionsOnly.resolve(.action("help"))?.sheet == "help")
        let empty = try QuickActionRouter(options: [:])
        #expect(empty.resolve(.action("help")) == nil)
    }

    @Test func wildcardAloneMatchesEveryPathButTheRoot() throws {
        let any = try QuickActionRouter(options: ["scheme": "kiosk", "routes": .array(["/*"])])
        #expect(any.resolve(.open("kiosk://anything/at/all"))?.route == "/anything/at/all")
        #expect(any.resolve(.open("kiosk://")) == nil)
    }

    @Test(arguments: [
        (["scheme": 5], "scheme"),
        (["scheme": "ki osk"], "scheme"),
        (["scheme": "kiosk:"], "scheme"),
        (["scheme": "1kiosk"], "scheme"),
        (["scheme": "kiosk", "routes": "/orders"], "routes"),
        (["scheme": "kiosk", "routes": .array([5])], "routes"),
        (["scheme": "kiosk", "routes": .array(["orders"])], "must start with '/'"),
        (["scheme": "kiosk", "routes": .array(["/orders/"])], "must not end with '/'"),
        (["scheme": "kiosk", "routes": .array(["/orders/*/items"])], "only supported as a whole last segment"),
        (["scheme": "kiosk", "routes": .array(["/orders*"])], "only supported as a whole last segment"),
        (["routes": .array(["/orders"])], "needs option 'scheme'"),
        (["actions": .array(["help", "feedback"])], "actions"),
        (["actions": .object(["help": "sheet"])], "entry 'help' must be a table"),
        (["actions": .object(["help": .object([:])])], "needs a route or a sheet"),
        (["actions": .object(["help": .object(["sheet": "help", "modal": true])])], "unknown key 'modal'"),
        (["actions": .object(["help": .object(["route": "help"])])], "bad route"),
        (["actions": .object(["help": .object(["sheet": 3])])], "bad sheet"),
        (["actions": .object(["a b": .object(["sheet": "x"])])], "bad action name"),
        (["actions": .object(["x:y": .object(["sheet": "x"])])], "bad action name"),
    ] as [([String: JSONValue], String)])
    func badOptionsAreRejectedClearly(options: [String: JSONValue], mentioned: String) {
        let error = #expect(throws: QuickActionRouter.OptionError.self) { try QuickActionRouter(options: options) }
        #expect(error?.description.contains(mentioned) == true, "\(error?.description ?? "no error")")
        #expect(error?.description.hasPrefix("quick-action: option '") == true)
        #expect(error?.stepFailure.retryable == false)
        #expect(error?.stepFailure.code == .badOptions)
    }

    @Test func spoolTextIsALinkWhenItStartsWithAScheme() {
        #expect(QuickInput(spoolText: "  kiosk://orders/42\n") == .open("kiosk://orders/42"))
        #expect(QuickInput(spoolText: "feedback-form\r\n") == .action("feedback-form"))
        #expect(QuickInput(spoolText: "not a url: really") == .action("not a url: really"))
        #expect(QuickInput(spoolText: " \n\t") == nil)
    }
}
