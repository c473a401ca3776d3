import SplashBuiltins
import SplashCore

/// A quick action or deep link against a router with a scheme, listed routes and actions: an
/// accepted link's route is a listed path, and never carries a query, a fragment or a `..`.
enum FuzzDeepLink {
    static let router: QuickActionRouter = {
        let options = try! QuickActionOptions(options: [
            "scheme": "kiosk",
            "routes": .array(["pokedex", "orders/*", "/settings"]),
            "actions": .object(["feedback": .object(["sheet": "feedback-form"])]),
        ])
        return QuickActionRouter(options: options)
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = router.resolve(.action(text))
        guard let resolution = router.resolve(.open(text)), let route = resolution.route else { return }
        FuzzFailure.check(router.accepts(path: route), "\(text) resolved to unlisted route \(route)")
        FuzzFailure.check(!route.contains("?") && !route.contains("#"), "\(text): route \(route) keeps a query or fragment")
        FuzzFailure.check(!route.split(separator: "/").contains(".."), "\(text): route \(route) climbs with ..")
    }
}
