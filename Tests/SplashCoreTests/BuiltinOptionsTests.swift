import SplashCore
import SplashJSON
import Testing

/// The built-in plugins' options, checked once for the config loader and the plugins alike.
@Suite struct BuiltinOptionsTests {
    @Test func everyPluginHasOneNameAndDefaults() throws {
        #expect(BuiltinPlugin.names == ["auth-refresh", "config-fetch", "launch-counter", "quick-action", "signal", "app-start"])
        for plugin in BuiltinPlugin.allCases {
            let parsed = try BuiltinOptions(plugin: plugin, options: [:])
            #expect(parsed == .defaults(for: plugin))
            #expect(parsed.plugin == plugin)
        }
        #expect(AuthRefreshOptions().session == "session.json")
        #expect(AuthRefreshOptions().skew == .seconds(60))
        #expect(ConfigFetchOptions().maxBytes == 1 << 20)
        #expect(LaunchCounterOptions().minLaunches == 5)
        #expect(QuickActionOptions().spool == "spool")
    }

    @Test(arguments: BuiltinPlugin.allCases)
    func unknownOptionsAreRejectedForEveryPlugin(plugin: BuiltinPlugin) {
        let error = #expect(throws: OptionError.self) {
            try BuiltinOptions(plugin: plugin, options: ["tiemout": "5s"])
        }
        #expect(error?.option == "tiemout")
        #expect(error?.message.hasPrefix("unknown option 'tiemout' (") == true)
    }

    @Test func signalTakesNoOptions() {
        let error = #expect(throws: OptionError.self) { try BuiltinOptions(plugin: .signal, options: ["a": 1]) }
        #expect(error?.message == "unknown option 'a' (it takes no options)")
    }

    @Test func valuesAreTyped() throws {
        let auth = try AuthRefreshOptions(options: [
            "token_url": "https://id.invalid/token", "client_id": "kiosk", "session": "", "skew": "2m",
            "request_timeout": "250ms",
        ])
        #expect(auth.tokenURL == "https://id.invalid/token")
        #expect(auth.clientID == "kiosk")
        #expect(auth.session == "session.json")  // empty counts as not set
        #expect(auth.skew == .seconds(120))
        #expect(auth.requestTimeout == .milliseconds(250))
        let fetch = try ConfigFetchOptions(options: ["url": "FILE:///etc/app.json", "max_bytes": 4096, "defaults": nil])
        #expect(fetch.url == "FILE:///etc/app.json")
        #expect(fetch.maxBytes == 4096)
        #expect(fetch.defaults == nil)
        let counter = try LaunchCounterOptions(options: ["count_when": "always", "version": "1.2"])
        #expect(counter.countWhen == .always)
        #expect(counter.version == "1.2")
    }

    @Test(arguments: [
        (BuiltinPlugin.authRefresh, "skew", JSONValue.string("soon"), "must be a duration"),
        (.authRefresh, "skew", .number(60), "must be a duration"),
        (.authRefresh, "request_timeout", .string("5 parsecs"), "must be a duration"),
        (.authRefresh, "token_url", .number(1), "must be a string, not 1"),
        (.authRefresh, "client_id", .bool(true), "must be a string"),
        (.authRefresh, "session", .array([]), "must be a path string"),
        (.configFetch, "url", .string("ftp://example.invalid/config.json"), "must be an http://, https:// or file:// URL"),
        (.configFetch, "url", .number(3), "must be an http://"),
        (.configFetch, "max_bytes", .string("1MiB"), "must be a positive whole number"),
        (.configFetch, "max_bytes", .number(0), "must be a positive whole number"),
        (.configFetch, "max_bytes", .number(2.5), "must be a positive whole number"),
        (.configFetch, "request_timeout", .string("forever"), "must be a duration"),
        (.configFetch, "cache", .bool(false), "must be a path string"),
        (.launchCounter, "min_launches", .number(0), "must be a whole number ≥ 1"),
        (.launchCounter, "min_launches", .string("five"), "must be a whole number ≥ 1"),
        (.launchCounter, "min_launches", .number(2.5), "must be a whole number ≥ 1"),
        (.launchCounter, "version", .number(3), "must be a non-empty string"),
        (.launchCounter, "version", .string("  "), "must be a non-empty string"),
        (.launchCounter, "count_when", .string("sometimes"), "must be \"signed-in\" or \"always\""),
        (.launchCounter, "file", .string(""), "must be a file path"),
        (.quickAction, "spool", .number(5), "must be a directory path"),
        (.quickAction, "spool", .string(""), "must be a directory path"),
    ])
    func badValuesNameTheOption(plugin: BuiltinPlugin, option: String, value: JSONValue, problem: String) {
        let error = #expect(throws: OptionError.self) { try BuiltinOptions(plugin: plugin, options: [option: value]) }
        #expect(error?.option == option)
        #expect(error?.message.hasPrefix("option '\(option)' \(problem)") == true, "\(error?.message ?? "no error")")
    }

    @Test(arguments: [
        (["scheme": 5], "scheme"),
        (["scheme": "ki osk"], "scheme"),
        (["scheme": "kiosk:"], "scheme"),
        (["scheme": "1kiosk"], "scheme"),
        (["scheme": "kiosk", "routes": "orders"], "routes"),
        (["scheme": "kiosk", "routes": .array([5])], "routes"),
        (["scheme": "kiosk", "routes": .array(["//orders"])], "has a bad path \"//orders\": it has an empty segment"),
        (["scheme": "kiosk", "routes": .array(["//*"])], "empty segment"),
        (["scheme": "kiosk", "routes": .array(["orders/"])], "must not end with '/'"),
        (["scheme": "kiosk", "routes": .array(["/orders/"])], "must not end with '/'"),
        (["scheme": "kiosk", "routes": .array(["orders/../admin"])], "'.' or '..' segment"),
        (["scheme": "kiosk", "routes": .array(["poke dex"])], "not allowed in a URL path"),
        (["scheme": "kiosk", "routes": .array(["orders/%zz"])], "'%' not followed by two hex digits"),
        (["scheme": "kiosk", "routes": .array(["orders/*/items"])], "only supported as a whole last segment"),
        (["scheme": "kiosk", "routes": .array(["/orders*"])], "only supported as a whole last segment"),
        (["routes": .array(["orders"])], "needs option 'scheme'"),
        (["actions": .array(["help", "feedback"])], "actions"),
        (["actions": .object(["help": "sheet"])], "entry 'help' must be a table"),
        (["actions": .object(["help": .object([:])])], "needs a route or a sheet"),
        (["actions": .object(["help": .object(["sheet": "help", "modal": true])])], "unknown key 'modal'"),
        (["actions": .object(["help": .object(["route": "he lp"])])], "bad route"),
        (["actions": .object(["help": .object(["route": "help/"])])], "bad route \"help/\": it must not end with '/'"),
        (["actions": .object(["help": .object(["sheet": 3])])], "bad sheet"),
        (["actions": .object(["a b": .object(["sheet": "x"])])], "bad action name"),
        (["actions": .object(["x:y": .object(["sheet": "x"])])], "bad action name"),
    ] as [([String: JSONValue], String)])
    func badQuickActionOptionsAreRejectedClearly(options: [String: JSONValue], mentioned: String) {
        let error = #expect(throws: OptionError.self) { try QuickActionOptions(options: options) }
        #expect(error?.message.contains(mentioned) == true, "\(error?.message ?? "no error")")
        #expect(error?.message.hasPrefix("option '\(error?.option ?? "")' ") == true)
        let failure = error?.stepFailure(plugin: .quickAction)
        #expect(failure?.code == .badOptions)
        #expect(failure?.retryable == false)
        #expect(failure?.message.hasPrefix("quick-action: option '") == true)
    }

    @Test func aStepReadsItsParsedOptionsOrParsesThemOnce() throws {
        var step = StepSpec(id: "c", plugin: "launch-counter", options: ["min_launches": 3])
        // Built by hand: parsed now.
        #expect(try step.builtinOptions(LaunchCounterOptions.self).minLaunches == 3)
        // Parsed by the loader: taken as they are.
        var parsed = LaunchCounterOptions()
        parsed.minLaunches = 7
        step.builtin = .launchCounter(parsed)
        #expect(try step.builtinOptions(LaunchCounterOptions.self).minLaunches == 7)
        #expect(try step.builtinOptions(for: .launchCounter) == .launchCounter(parsed))
        #expect(step == StepSpec(id: "c", plugin: "launch-counter", options: ["min_launches": 3]))
        // New options clear them.
        step.options = ["min_launches": "many"]
        #expect(step.builtin == nil)
        let failure = #expect(throws: StepFailure.self) { try step.builtinOptions(LaunchCounterOptions.self) }
        #expect(failure == StepFailure(
            code: .badOptions,
            message: "launch-counter: option 'min_launches' must be a whole number ≥ 1, not \"many\"",
            retryable: false
        ))
        #expect(throws: StepFailure.self) { try step.builtinOptions(for: .launchCounter) }
    }
}
