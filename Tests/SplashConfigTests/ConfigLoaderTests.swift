import SplashConfig
import SplashCore
import SplashJSON
import Testing

/// Valid configs and the values they produce.
@Suite struct ConfigLoaderTests {
    let manifests = PluginCatalog(manifests: [
        "wifi-wait": PluginManifest(
            name: "wifi-wait", executable: "/usr/lib/splashd/plugins/wifi-wait", timeout: .seconds(20),
            manifestPath: "/usr/lib/splashd/plugins/wifi-wait.toml"
        ),
        "untimed": PluginManifest(name: "untimed", executable: "/bin/true", manifestPath: "/x/untimed.toml"),
    ])

    @Test func fullConfigRoundTrips() throws {
        let text = """
            [splash]
            min_display   = "1.5s"     # floor before dismissing
            slow_after    = "750ms"
            timeout       = "2m"
            exit_animation = "250ms"
            allow_offline = false

            [socket]
            path = "/run/splashd/test.sock"
            mode = "0640"
            control_group = "kiosk"

            [[step]]
            id = "config-fetch"
            plugin = "config-fetch"
            after = []
            critical = true
            timeout = "5s"
            retry = { attempts = 3, backoff = "100ms" }
            label = "Loading configuration"
            [step.options]
            url = "https://example.invalid/config.json"

            [[step]]
            id = "wifi"
            plugin = "wifi-wait"
            critical = false
            [step.retry]
            attempts = 5
            [step.options]        # an external plugin's options are its own business
            headers = { accept = "application/json", "x-tries" = 2 }
            mirrors = ["a", "b"]
            weights = [1, 2.5, true, { deep = [[]] }]
            since = 2024-05-01

            [[step]]
            id = "launch"
            plugin = "signal"
            after = ["config-fetch", "wifi"]
            label = "Starting"
            [step.retry]
            backoff = "1s"
            """
        // `kiosk` exists on the system this config is for (the lookup is the system's).
        let system = SystemLookup(groupExists: { $0 == "kiosk" })
        let config = try ConfigLoader.parse(text, file: "splashd.toml", catalog: manifests, system: system)
        #expect(config.source == "splashd.toml")
        #expect(
            config.settings
                == SplashSettings(
                    minDisplay: .milliseconds(1500), slowAfter: .milliseconds(750), timeout: .seconds(120),
                    exitAnimation: .milliseconds(250), allowOffline: false
                )
        )
        #expect(config.socket == SocketSettings(path: "/run/splashd/test.sock", mode: 0o640, controlGroup: "kiosk"))
        let wifiOptions: [String: JSONValue] = [
            "headers": .object(["accept": .string("application/json"), "x-tries": .number(2)]),
            "mirrors": .array([.string("a"), .string("b")]),
            "weights": .array([.number(1), .number(2.5), .bool(true), .object(["deep": .array([.array([])])])]),
            "since": .string("2024-05-01"),
        ]
        #expect(
            config.graph.steps == [
                StepSpec(
                    id: "config-fetch", plugin: "config-fetch", after: [], critical: true, timeout: .seconds(5),
                    retry: .init(attempts: 3, backoff: .milliseconds(100)), label: "Loading configuration",
                    options: ["url": .string("https://example.invalid/config.json")]
                ),
                // No timeout of its own: the manifest's 20s applies.
                StepSpec(
                    id: "wifi", plugin: "wifi-wait", critical: false, timeout: .seconds(20),
                    retry: .init(attempts: 5, backoff: .milliseconds(200)), options: wifiOptions
                ),
                StepSpec(
                    id: "launch", plugin: "signal", after: ["config-fetch", "wifi"], timeout: StepSpec.defaultTimeout,
                    retry: .init(attempts: 1, backoff: .seconds(1)), label: "Starting"
                ),
            ]
        )
        #expect(config.graph.order == [0, 1, 2])
        // The built-ins' options are read with the file; an external plugin's are not.
        var fetch = ConfigFetchOptions()
        fetch.url = "https://example.invalid/config.json"
        #expect(config.graph.steps.map(\.builtin) == [.configFetch(fetch), nil, .signal])
    }

    @Test func emptyFileGivesDefaults() throws {
        let config = try ConfigLoader.parse("# nothing here\n", file: "empty.toml", catalog: PluginCatalog())
        #expect(config.settings == SplashSettings())
        #expect(config.socket == SocketSettings(path: nil, mode: 0o660, controlGroup: nil))
        #expect(config.graph.steps.isEmpty)
        #expect(config.source == "empty.toml")
    }

    @Test func theDaemonSectionTurnsTheMemoryReleaseOff() throws {
        #expect(try ConfigLoader.parse("", file: "a.toml", catalog: PluginCatalog()).daemon.releaseMemoryAfterLaunch)
        let off = try ConfigLoader.parse("[daemon]\nrelease_memory_after_launch = false\n", file: "b.toml", catalog: PluginCatalog())
        #expect(off.daemon == DaemonSettings(releaseMemoryAfterLaunch: false))
        #expect(throws: ConfigError.self) {
            try ConfigLoader.parse("[daemon]\nrelease_memory_after_launch = \"no\"\n", file: "c.toml", catalog: PluginCatalog())
        }
    }

    @Test func stepDefaults() throws {
        let config = try ConfigLoader.parse(
            """
            [[step]]
            id = "a"
            plugin = "quick-action"
            [[step]]
            id = "b"
            plugin = "untimed"
            """,
            file: "f.toml", catalog: manifests
        )
        #expect(
            config.graph.steps == [
                StepSpec(id: "a", plugin: "quick-action", after: [], critical: true, timeout: .seconds(30)),
                StepSpec(id: "b", plugin: "untimed", timeout: StepSpec.defaultTimeout),
            ]
        )
        #expect(config.graph.steps[0].retry == StepSpec.RetryPolicy(attempts: 1, backoff: .milliseconds(200)))
        #expect(config.graph.steps[0].label == nil)
        #expect(config.graph.steps[0].options.isEmpty)
    }

    @Test func stepTimeoutBeatsManifestTimeout() throws {
        let config = try ConfigLoader.parse(
            "[[step]]\nid = \"w\"\nplugin = \"wifi-wait\"\ntimeout = \"3s\"\n", file: "f.toml", catalog: manifests
        )
        #expect(config.graph.steps[0].timeout == .seconds(3))
    }

    @Test(arguments: [
        ("mode = \"0660\"", UInt32(0o660)), ("mode = \"660\"", 0o660), ("mode = \"0o755\"", 0o755),
        ("mode = \"0\"", 0), ("mode = 0o600", 0o600), ("mode = 384", 0o600), ("", 0o660),
    ])
    func socketModes(line: String, mode: UInt32) throws {
        let config = try ConfigLoader.parse("[socket]\n\(line)\n", file: "f.toml", catalog: PluginCatalog())
        #expect(config.socket.mode == mode)
    }

    @Test func stepsAsInlineArrayAreAccepted() throws {
        let config = try ConfigLoader.parse(
            "step = [{ id = \"a\", plugin = \"signal\" }, { id = \"b\", plugin = \"signal\", after = [\"a\"] }]\n",
            file: "f.toml", catalog: PluginCatalog()
        )
        #expect(config.graph.steps.map(\.id) == ["a", "b"])
    }

    @Test func windowsLineEndingsAreAccepted() throws {
        let config = try ConfigLoader.parse(
            "[splash]\r\ntimeout = \"3s\"\r\n[[step]]\r\nid = \"a\"\r\nplugin = \"signal\"\r\n",
            file: "f.toml", catalog: PluginCatalog()
        )
        #expect(config.settings.timeout == .seconds(3))
    }

    @Test func embeddedDefaultValidates() throws {
        let config = DaemonConfig.embeddedDefault()
        #expect(config.source == "embedded default")
        #expect(config.settings == SplashSettings())
        #expect(config.socket == SocketSettings())
        #expect(
            config.graph.steps == [
                StepSpec(id: "auth-refresh", plugin: "auth-refresh", critical: true, label: "Signing in"),
                StepSpec(id: "config-fetch", plugin: "config-fetch", critical: true, label: "Loading configuration"),
                StepSpec(id: "launch-counter", plugin: "launch-counter", after: ["auth-refresh"], critical: false),
                StepSpec(id: "quick-action", plugin: "quick-action", critical: false),
            ]
        )
        #expect(config.graph.steps.map(\.builtin) == [BuiltinPlugin.authRefresh, .configFetch, .launchCounter, .quickAction].map(BuiltinOptions.defaults(for:)))
        // It passes the same validation as a file, with only built-in plugins known.
        let revalidated = try StepGraph(steps: config.graph.steps, isKnownPlugin: PluginCatalog().isKnown)
        #expect(revalidated == config.graph)
        #expect(config.graph.steps.allSatisfy { BuiltinPlugin.names.contains($0.plugin) })
    }

    @Test func builtinPluginsAreAlwaysKnown() {
        let catalog = PluginCatalog()
        for name in ["auth-refresh", "config-fetch", "launch-counter", "quick-action", "signal"] {
            #expect(catalog.isKnown(name))
        }
        #expect(!catalog.isKnown("wifi-wait"))
        #expect(manifests.isKnown("wifi-wait"))
    }

    @Test func configErrorDescription() {
        #expect(ConfigError(file: "/etc/x.toml", line: 4, message: "boom").description == "/etc/x.toml:4: boom")
        #expect(ConfigError(file: "/etc/x.toml", line: nil, message: "boom").description == "/etc/x.toml: boom")
        let several = ConfigError(problems: [
            .init(file: "x.toml", message: "no line"), .init(file: "x.toml", line: 9, message: "b"),
            .init(file: "x.toml", line: 2, message: "a"), .init(file: "x.toml", line: 9, message: "c"),
        ])
        #expect(several.description == "x.toml:2: a\nx.toml:9: b\nx.toml:9: c\nx.toml: no line")
        #expect(several.file == "x.toml")
        #expect(several.line == 2)
        #expect(several.message == "a")
    }
}
