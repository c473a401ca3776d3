import SplashProtocol
import Testing

/// Routes as every reader of them takes them (design §7, §14).
@Suite struct RoutePathTests {
    @Test(arguments: [
        ("orders/42", nil), ("orders/%41b", nil), ("a.b/..c/...", nil), ("orders/%2e%2e%2e", nil),
        ("orders/../x", "'.' or '..' segment"), ("orders/./x", "'.' or '..' segment"),
        // Found probing the app's life: a percent-encoded `..` was accepted and restored.
        ("orders/%2e%2e/x", "percent-encoded '.' or '..'"), ("orders/%2E%2E", "percent-encoded '.' or '..'"),
        ("orders/.%2e/x", "percent-encoded '.' or '..'"), ("%2e/x", "percent-encoded '.' or '..'"),
        ("orders%2F..%2Fadmin", "percent-encoded '/'"), ("orders/%2f", "percent-encoded '/'"),
    ] as [(String, String?)])
    func segments(route: String, problem: String?) {
        let found = RoutePath.problem(with: route)
        if let problem { #expect(found?.contains(problem) == true, "\(route): \(found ?? "nil")") } else { #expect(found == nil, "\(route): \(found ?? "")") }
    }

    /// Found probing the app's life: a 64 KiB route made the state line 65,964 bytes, past the
    /// line limit of every state reader (splashctl, renderers).
    @Test func aRouteIsBoundedFarBelowTheLineLimit() {
        let longest = "orders/" + String(repeating: "a", count: RoutePath.maximumLength - 7)
        #expect(RoutePath.problem(with: longest) == nil)
        #expect(RoutePath.problem(with: longest + "a") == "it is longer than 2048 bytes")
        #expect(RoutePath.problem(with: "orders/" + String(repeating: "a", count: 65_400))?.contains("longer than") == true)
    }
}
