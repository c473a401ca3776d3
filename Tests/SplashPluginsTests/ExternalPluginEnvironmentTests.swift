#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SplashCore
import SplashJSON
@testable import SplashPlugins
import Testing

@Suite("ExternalPlugin: environment and process setup", .timeLimit(.minutes(10)))
struct ExternalPluginEnvironmentTests {
    @Test func passesStepVariablesOptionsAndFacts() async throws {
        let fixture = try PluginFixture()
        let out = fixture.path("out")
        let path = try fixture.script("env.sh", """
            #!/bin/sh
            out="$SPLASHD_OPT_OUT"
            printf '%s' "$SPLASHD_STEP" > "$out.step"
            printf '%s' "$SPLASHD_LAUNCH" > "$out.launch"
            printf '%s' "$SPLASHD_ATTEMPT" > "$out.attempt"
            printf '%s' "$SPLASHD_OPTIONS" > "$out.options"
            printf '%s' "$SPLASHD_FACTS" > "$out.facts"
            printf '%s|%s|%s|%s' "$SPLASHD_OPT_RETRY_DELAY" "$SPLASHD_OPT_FULLSCREEN" "$SPLASHD_OPT_COUNT" \
                "$SPLASHD_OPT_SERVER_URL" > "$out.scalars"
            printf '%s' "${SPLASHD_OPT_NESTED-unset}|${SPLASHD_OPT_LIST-unset}|${SPLASHD_OPT_NOTHING-unset}" > "$out.nonscalars"
            printf '%s' "$PATH" > "$out.path"
            """)
        let options: [String: JSONValue] = [
            "out": .string(out),
            "retry-delay": .number(1.5),
            "fullscreen": .bool(true),
            "count": .number(3),
            "server.url": .string("https://example.com/a b"),
            "nested": .object(["a": .number(1)]),
            "list": .array([.string("x")]),
            "nothing": .null,
        ]
        let facts: [String: Facts] = ["network": ["reachable": .bool(true)], "gpu": ["device": .string("/dev/dri/card0")]]
        let context = fixture.context(step: "kiosk-app", options: options, dependencyFacts: facts, launch: "L7", attempt: 2)

        let result = try await fixture.plugin(path).run(context)

        #expect(result == [:])
        #expect(fixture.read("out.step") == "kiosk-app")
        #expect(fixture.read("out.launch") == "L7")
        #expect(fixture.read("out.attempt") == "2")
        #expect(fixture.read("out.scalars") == "1.5|true|3|https://example.com/a b")
        #expect(fixture.read("out.nonscalars") == "unset|unset|unset")
        // The daemon's own environment is passed on.
        #expect(fixture.read("out.path") == ProcessInfo.processInfo.environment["PATH"])
        let decodedOptions = try JSONDecoder().decode([String: JSONValue].self, from: Data((fixture.read("out.options") ?? "").utf8))
        #expect(decodedOptions == options)
        let decodedFacts = try JSONDecoder().decode([String: Facts].self, from: Data((fixture.read("out.facts") ?? "").utf8))
        #expect(decodedFacts == facts)
    }

    /// A run inherits the environment the plugin was given (the daemon's, read once at start),
    /// not whatever the process environment holds.
    @Test func inheritsTheGivenEnvironmentWithoutTheServiceManagersVariables() async throws {
        let fixture = try PluginFixture()
        #expect(ProcessInfo.processInfo.environment["HOME"] != nil, "the test process has a HOME to leave out")
        let path = try fixture.script("given.sh", """
            #!/bin/sh
            printf '%s|%s|%s' "${GIVEN-unset}" "${HOME-unset}" "${NOTIFY_SOCKET-unset}" > "$SPLASHD_OPT_OUT"
            """)
        let given = PluginEnvironment.Inherited(["GIVEN": "yes", "NOTIFY_SOCKET": "/run/systemd/notify"])
        let context = fixture.context(options: ["out": .string(fixture.path("out"))])

        #expect(try await fixture.plugin(path, environment: given).run(context) == [:])
        #expect(fixture.read("out") == "yes|unset|unset")
    }

    @Test func runsWithoutShellInOwnGroupWithNullStdin() async throws {
        let fixture = try PluginFixture()
        let out = fixture.path("out")
        // No shebang interpretation by a shell of ours: argv[0] is the executable itself.
        let path = try fixture.script("setup.sh", """
            #!/bin/sh
            out="$SPLASHD_OPT_OUT"
            readlink /proc/self/fd/0 > "$out.stdin"
            # Fields after the command name in /proc/PID/stat: state ppid pgrp session ...
            stat=$(cat /proc/$$/stat)
            set -- ${stat##*) }
            printf '%s %s\\n' "$$" "$3" > "$out.group"
            printf '%s' "$0" > "$out.argv0"
            """)
        _ = try await fixture.plugin(path).run(fixture.context(options: ["out": .string(out)]))

        #expect(fixture.read("out.stdin") == "/dev/null\n")
        let group = (fixture.read("out.group") ?? "").split { $0 == " " || $0 == "\n" }
        #expect(group.count == 2)
        #expect(group.first == group.last, "the plugin leads its own process group: pid and pgrp \(group)")
        #expect(fixture.read("out.argv0") == path)
    }

    @Test(arguments: [
        ("path", "SPLASHD_OPT_PATH"),
        ("retry-delay", "SPLASHD_OPT_RETRY_DELAY"),
        ("server.url", "SPLASHD_OPT_SERVER_URL"),
        ("a b/c", "SPLASHD_OPT_A_B_C"),
        ("émoji", "SPLASHD_OPT__MOJI"),
        ("x9", "SPLASHD_OPT_X9"),
    ])
    func optionVariableNames(key: String, expected: String) {
        #expect(PluginEnvironment.optionVariableName(for: key) == expected)
    }

    @Test func theInheritedEnvironmentLosesSystemdVariablesAndYieldsToTheAttempts() {
        let inherited = PluginEnvironment.Inherited(entries: [
            "PATH=/usr/bin", "NOTIFY_SOCKET=/run/systemd/notify", "LISTEN_FDS=1", "SPLASHD_STEP=stale",
            "SPLASHD_FROM_UNIT=kept", "NO_EQUALS", "=nameless", "EMPTY=", "EQ=a=b",
        ].map { Array($0.utf8) })
        let spec = StepSpec(id: "net", plugin: "probe", options: ["mode": .string("fast")])
        let rows = PluginEnvironment.rows(for: StepRun(step: spec, launch: "L9", attempt: 1, token: 1), inheriting: inherited)

        #expect(rows.allSatisfy { $0.last == 0 && $0.dropLast().contains(0) == false }, "one NUL, at the end")
        let entries = rows.map { String(decoding: $0.dropLast(), as: UTF8.self) }
        #expect(Set(entries) == [
            "PATH=/usr/bin", "SPLASHD_FROM_UNIT=kept", "EMPTY=", "EQ=a=b",
            "SPLASHD_STEP=net", "SPLASHD_LAUNCH=L9", "SPLASHD_ATTEMPT=1", #"SPLASHD_OPTIONS={"mode":"fast"}"#,
            "SPLASHD_FACTS={}", "SPLASHD_OPT_MODE=fast",
        ])
        #expect(entries.count == Set(entries).count)
    }

    @Test func optionsAndFactsAreCompactJSONWithSortedKeys() {
        #expect(PluginEnvironment.json(["b": .array([.number(1.5), .null]), "a": .string("x/\"y\"\n")]) == #"{"a":"x/\"y\"\n","b":[1.5,null]}"#)
        #expect(PluginEnvironment.json(["net": ["up": .bool(true)], "gpu": [:]] as [String: Facts]) == #"{"gpu":{},"net":{"up":true}}"#)
        #expect(PluginEnvironment.json([:] as [String: Facts]) == "{}")
    }

    @Test func scalarOptionTexts() {
        #expect(PluginEnvironment.scalarText(.number(3)) == "3")
        #expect(PluginEnvironment.scalarText(.number(-0.25)) == "-0.25")
        #expect(PluginEnvironment.scalarText(.bool(false)) == "false")
        #expect(PluginEnvironment.scalarText(.string("a\"b")) == "a\"b")
        #expect(PluginEnvironment.scalarText(.null) == nil)
        #expect(PluginEnvironment.scalarText(.array([])) == nil)
        #expect(PluginEnvironment.scalarText(.object([:])) == nil)
    }
}
