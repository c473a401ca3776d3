import SplashConfig
import SplashCore
import Testing

/// Configs `splashd check` must reject, with the message and line it must print.
@Suite struct ConfigRejectionTests {
    /// The error parsing `text` as `splashd.toml` throws, or `nil` if it is accepted.
    func rejection(_ text: String, catalog: PluginCatalog = PluginCatalog()) -> ConfigError? {
        do {
            _ = try ConfigLoader.parse(text, file: "splashd.toml", catalog: catalog)
            return nil
        } catch {
            return error
        }
    }

    /// Every state lists every step: a graph whose state cannot fit the protocol's line is
    /// refused at the first step that does not fit (700 steps "Step N" made 72,853-byte states).
    @Test func aGraphWhoseStateCannotFitALineIsRefusedAtItsFirstStepOver() throws {
        func steps(_ count: Int) -> String {
            "[splash]\ntimeout = \"10s\"\n" + (0..<count).map { "\n[[step]]\nid = \"s\($0)\"\nplugin = \"signal\"\nlabel = \"Step \($0)\"\n" }.joined()
        }
        let error = try #require(rejection(steps(700)))
        #expect(error.problems.count == 1)
        let problem = try #require(error.problems.first)
        let line = try #require(problem.line)
        // The first step over the bound, at its id's line.
        let text = steps(700).split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
        #expect(text.hasPrefix("id = \"s"), "\(text)")
        let index = try #require(Int(text.dropFirst(7).dropLast()))
        #expect(problem.message.contains("over the protocol's line of 65536 bytes"), "\(problem.message)")
        #expect((300..<700).contains(index), "\(index)")
        #expect(rejection(steps(index)) == nil)
        #expect(rejection(steps(index + 1)) != nil)
    }

    @Test func cycleIsNamedAtTheStepsAfterKey() {
        let error = rejection(
            """
            [splash]
            timeout = "10s"

            [[step]]
            id = "a"
            plugin = "signal"
            after = ["c"]

            [[step]]
            id = "b"
            plugin = "signal"
            after = ["a"]

            [[step]]
            id = "c"
            plugin = "signal"
            after = ["b"]
            """
        )
        #expect(error == ConfigError(file: "splashd.toml", line: 7, message: "dependency cycle: a -> c -> b -> a"))
        #expect(error?.description == "splashd.toml:7: dependency cycle: a -> c -> b -> a")
    }

    @Test func selfDependencyIsACycle() {
        let error = rejection("[[step]]\nid = \"a\"\nplugin = \"signal\"\nafter = [\"a\"]\n")
        #expect(error == ConfigError(file: "splashd.toml", line: 4, message: "dependency cycle: a -> a"))
    }

    @Test func unknownDependency() {
        let error = rejection(
            """
            [[step]]
            id = "a"
            plugin = "signal"

            [[step]]
            id = "b"
            plugin = "signal"
            after = [
              "a",
              "nope",
            ]
            """
        )
        #expect(error?.line == 8)
        #expect(error?.message == "step \"b\" depends on unknown step \"nope\"")
    }

    @Test func duplicateIDPointsAtTheSecondOne() {
        let error = rejection(
            """
            [[step]]
            id = "a"
            plugin = "signal"

            [[step]]
            plugin = "signal"
            id = "a"
            """
        )
        #expect(error == ConfigError(file: "splashd.toml", line: 7, message: "duplicate step id \"a\""))
    }

    @Test func unknownPlugin() {
        let error = rejection("[[step]]\nid = \"a\"\n\n\nplugin = \"teleport\"\n")
        #expect(error == ConfigError(file: "splashd.toml", line: 5, message: "step \"a\" uses unknown plugin \"teleport\""))
        // Known through a manifest: accepted.
        let catalog = PluginCatalog(manifests: [
            "teleport": PluginManifest(name: "teleport", executable: "/bin/true", manifestPath: "/x/teleport.toml")
        ])
        #expect(rejection("[[step]]\nid = \"a\"\nplugin = \"teleport\"\n", catalog: catalog) == nil)
    }

    @Test func badStepDuration() {
        let error = rejection(
            """
            # splashd

            [[step]]
            id = "other"
            plugin = "signal"
            timeout = "1s"

            [[step]]
            id = "fetch"
            plugin = "config-fetch"
            timeout = "5 seconds"
            """
        )
        #expect(error?.line == 11)
        #expect(error?.message.hasPrefix("step \"fetch\": bad duration \"5 seconds\" for timeout: expected a number with a unit") == true)
    }

    @Test func badSplashDuration() {
        let error = rejection("[splash]\nmin_display = \"1s\"\nslow_after = \"soon\"\n")
        #expect(error?.line == 3)
        #expect(error?.message.hasPrefix("bad duration \"soon\" for slow_after in [splash]: expected a number") == true)
    }

    @Test func badRetryBackoffInSubTable() {
        let error = rejection("[[step]]\nid = \"a\"\nplugin = \"signal\"\n[step.retry]\nattempts = 2\nbackoff = \"x\"\n")
        #expect(error?.line == 6)
        #expect(error?.message.hasPrefix("step \"a\": bad duration \"x\" for retry.backoff: ") == true)
    }

    @Test func zeroStepTimeout() {
        let error = rejection("[[step]]\nid = \"a\"\nplugin = \"signal\"\ntimeout = \"0\"\n")
        #expect(error == ConfigError(file: "splashd.toml", line: 4, message: "step \"a\": timeout must be greater than zero"))
    }

    @Test(arguments: [
        ("[splash]\nmin_display = \"1s\"\nmin_dispaly = \"2s\"\n", 3, "unknown key \"min_dispaly\" in [splash]"),
        ("[socket]\nowner = \"root\"\n", 2, "unknown key \"owner\" in [socket]"),
        ("[daemon]\nrelease_memory = false\n", 2, "unknown key \"release_memory\" in [daemon]"),
        ("title = \"x\"\n[splash]\n", 1, "unknown key \"title\""),
        ("[splash]\n[sockets]\npath = \"/x\"\n", 2, "unknown key \"sockets\""),
        ("[[step]]\nid = \"a\"\nplugin = \"signal\"\nretries = 3\n", 4, "step \"a\": unknown key \"retries\""),
        ("[[step]]\nplugin = \"signal\"\nretries = 3\n", 3, "step #1: unknown key \"retries\""),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\nretry = { attempts = 2, delay = \"1s\" }\n", 4,
            "step \"a\": unknown key \"retry.delay\""
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\n[step.retry]\nattempts = 2\ndelay = \"1s\"\n", 6,
            "step \"a\": unknown key \"retry.delay\""
        ),
    ])
    func unknownKeys(text: String, line: Int, message: String) {
        #expect(rejection(text) == ConfigError(file: "splashd.toml", line: line, message: message))
    }

    @Test func unknownKeysInsideAnExternalPluginsOptionsAreFine() {
        let catalog = PluginCatalog(manifests: [
            "wifi": PluginManifest(name: "wifi", executable: "/bin/true", manifestPath: "/x/wifi.toml")
        ])
        let text = "[[step]]\nid = \"a\"\nplugin = \"wifi\"\n[step.options]\nanything = 1\nnested = { goes = true }\n"
        #expect(rejection(text, catalog: catalog) == nil)
        // A built-in's are checked: signal takes none.
        #expect(
            rejection(text.replacing("\"wifi\"", with: "\"signal\""), catalog: catalog)
                == ConfigError(
                    file: "splashd.toml", line: 5, message: "step \"a\": unknown option 'anything' (it takes no options)"
                )
        )
    }

    @Test(arguments: [
        (
            "[splash]\nallow_offline = \"yes\"\n", 2,
            "wrong type for allow_offline in [splash]: expected a boolean, found a string"
        ),
        ("[splash]\ntimeout = 10\n", 2, "wrong type for timeout in [splash]: expected a string, found an integer"),
        ("splash = 3\n", 1, "wrong type for splash: expected a table, found an integer"),
        ("[socket]\npath = 1\n", 2, "wrong type for path in [socket]: expected a string, found an integer"),
        (
            "[socket]\nmode = true\n", 2,
            "wrong type for mode in [socket]: expected a string or an integer, found a boolean"
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\ncritical = \"no\"\n", 4,
            "step \"a\": wrong type for critical: expected a boolean, found a string"
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\nafter = \"b\"\n", 4,
            "step \"a\": wrong type for after: expected an array of strings, found a string"
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\nafter = [\"b\", 2]\n", 4,
            "step \"a\": wrong type for after[1]: expected a string, found an integer"
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\nretry = 3\n", 4,
            "step \"a\": wrong type for retry: expected a table, found an integer"
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\nretry = { attempts = \"3\" }\n", 4,
            "step \"a\": wrong type for retry.attempts: expected an integer, found a string"
        ),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\noptions = [1]\n", 4,
            "step \"a\": wrong type for options: expected a table, found an array"
        ),
        ("[[step]]\nid = 7\nplugin = \"signal\"\n", 2, "step #1: wrong type for id: expected a string, found an integer"),
        (
            "[[step]]\nid = \"a\"\nplugin = \"signal\"\nlabel = 1.5\n", 4,
            "step \"a\": wrong type for label: expected a string, found a floating-point number"
        ),
        ("[step]\nid = \"a\"\n", 1, "\"step\" must be an array of tables: write [[step]], not [step]"),
        ("step = [1]\n", 1, "wrong type for step #1: expected a table, found an integer"),
    ])
    func wrongTypes(text: String, line: Int, message: String) {
        #expect(rejection(text) == ConfigError(file: "splashd.toml", line: line, message: message))
    }

    @Test func missingIDOrPlugin() {
        #expect(
            rejection("[[step]]\nid = \"a\"\nplugin = \"signal\"\n\n[[step]]\nplugin = \"signal\"\n")
                == ConfigError(file: "splashd.toml", line: 5, message: "step #2: missing required key \"id\"")
        )
        #expect(
            rejection("[[step]]\nid = \"a\"\nlabel = \"A\"\n")
                == ConfigError(file: "splashd.toml", line: 1, message: "step \"a\": missing required key \"plugin\"")
        )
        #expect(
            rejection("[[step]]\nid = \"\"\nplugin = \"signal\"\n")
                == ConfigError(file: "splashd.toml", line: 2, message: "step #1: id must not be empty")
        )
    }

    @Test func aDottedRetryKeyIsLocated() {
        #expect(
            rejection("[[step]]\nid = \"a\"\nplugin = \"signal\"\nretry . attempts = 0\n")
                == ConfigError(
                    file: "splashd.toml", line: 4,
                    message: "step \"a\": retry.attempts must be at least 1 (it counts the first try)"
                )
        )
    }

    @Test func stepsAsAnInlineArrayAreLocatedByElement() {
        let text = "\n\nstep = [\n  { id = \"a\", plugin = \"signal\" },\n  { id = \"a\", plugin = \"signal\" },\n]\n"
        #expect(rejection(text) == ConfigError(file: "splashd.toml", line: 5, message: "duplicate step id \"a\""))
        let missing = "step = [\n  { id = \"a\", plugin = \"signal\" },\n  { plugin = \"signal\" },\n]\n"
        #expect(rejection(missing) == ConfigError(file: "splashd.toml", line: 3, message: "step #2: missing required key \"id\""))
    }

    @Test func retryAttemptsMustBePositive() {
        #expect(
            rejection("[[step]]\nid = \"a\"\nplugin = \"signal\"\nretry = { attempts = 0 }\n")
                == ConfigError(
                    file: "splashd.toml", line: 4,
                    message: "step \"a\": retry.attempts must be at least 1 (it counts the first try)"
                )
        )
    }

    @Test(arguments: ["\"0668\"", "\"rw-rw----\"", "\"01777\"", "\"\"", "\"-1\"", "660", "-1", "0o1000"])
    func badSocketModes(value: String) {
        let error = rejection("[socket]\npath = \"/run/s.sock\"\nmode = \(value)\n")
        #expect(error?.line == 3)
        #expect(error?.message.hasPrefix("bad mode ") == true)
        #expect(error?.message.contains("expected octal permission bits up to 0777") == true)
    }

    @Test func relativeSocketPath() {
        #expect(
            rejection("[socket]\npath = \"run/s.sock\"\n")
                == ConfigError(file: "splashd.toml", line: 2, message: "socket path \"run/s.sock\" must be absolute")
        )
    }

    @Test func tomlSyntaxErrorUsesTheParsersLine() throws {
        let error = try #require(rejection("[splash]\ntimeout = \"1s\"\n\nmin_display = \"1s\n"))
        #expect(error.file == "splashd.toml")
        #expect(error.line == 4)
        #expect(error.message.hasPrefix("TOML syntax error: "))
        let duplicate = try #require(rejection("[splash]\ntimeout = \"1s\"\ntimeout = \"2s\"\n"))
        #expect(duplicate.line == 3)
    }

    /// `check` reports every problem it finds: each section and each step on its own, and the
    /// graph of the steps that could be read, in file order.
    @Test func everyProblemIsReportedInFileOrder() throws {
        let error = try #require(
            rejection(
                """
                [[step]]
                id = "quick"
                plugin = "quick-action"
                [step.options]
                routes = ["pokedex"]

                [splash]
                timeout = "soon"

                [[step]]
                id = "door"
                plugin = "teleport"
                after = ["quick"]
                """
            )
        )
        #expect(error.problems.map(\.line) == [5, 8, 12])
        #expect(
            error.description == """
                splashd.toml:5: step "quick": option 'routes' needs option 'scheme' (the scheme of the deep links)
                splashd.toml:8: bad duration "soon" for timeout in [splash]: expected a number with a unit (us, ms, s, m, h), e.g. "250ms", "1.5s", "2m"
                splashd.toml:12: step "door" uses unknown plugin "teleport"
                """
        )
        // The first problem is the error's file, line and message, as for a single one.
        #expect(error.line == 5)
        #expect(error.message.hasPrefix("step \"quick\": option 'routes'"))
    }

    @Test func aStepThatCannotBeReadIsNotReportedAgainByItsDependants() {
        let error = rejection(
            """
            [socket]
            owner = "root"

            [[step]]
            id = "a"
            plugin = "signal"
            timeout = "0"

            [[step]]
            id = "b"
            plugin = "signal"
            after = ["a", "nope"]

            [[step]]
            id = "b"
            plugin = "signal"
            """
        )
        #expect(
            error?.problems == [
                .init(file: "splashd.toml", line: 2, message: "unknown key \"owner\" in [socket]"),
                .init(file: "splashd.toml", line: 7, message: "step \"a\": timeout must be greater than zero"),
                .init(file: "splashd.toml", line: 12, message: "step \"b\" depends on unknown step \"nope\""),
                .init(file: "splashd.toml", line: 15, message: "duplicate step id \"b\""),
            ]
        )
    }

    @Test func oneProblemPerStepAndSection() {
        let error = rejection("[splash]\ntimeout = 1\nslow_after = 2\n[[step]]\nplugin = \"signal\"\nretries = 3\n")
        // The first of each in the order they are read: slow_after before timeout.
        #expect(error?.problems.map(\.line) == [3, 6])
    }

    @Test func unreadableFile() {
        do {
            _ = try ConfigLoader.load(path: "/nonexistent/splashd.toml", catalog: PluginCatalog())
            Issue.record("expected an error")
        } catch {
            #expect(error.file == "/nonexistent/splashd.toml")
            #expect(error.line == nil)
            #expect(error.description == "/nonexistent/splashd.toml: cannot read config: No such file or directory")
        }
    }
}
