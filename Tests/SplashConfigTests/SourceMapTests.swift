@testable import SplashConfig
import SplashCore
import Testing

/// Locating keys in TOML text that tries to confuse a line scanner.
@Suite struct SourceMapTests {
    @Test func multiLineValuesDoNotLookLikeHeadersOrKeys() throws {
        let text = """
            [[step]]
            id = "a"
            plugin = "ext"
            [step.options]
            script = \"\"\"
            [[step]]
            id = "zzz"
            \"\"\"
            literal = '''
            plugin = "x" '''
            matrix = [
              [1, 2],
              [3], # a comment with [[step]]
            ]
            "quoted key" = { inner = "}" }

            [[step]]
            id = "b"
            plugin = "nope"
            """
        let map = SourceMap(text)
        #expect(map.line(of: ["step"], element: 0) == 1)
        #expect(map.line(of: ["step", "options", "matrix"], element: 0) == 11)
        #expect(map.line(of: ["step", "options", "quoted key"], element: 0) == 15)
        #expect(map.line(of: ["step", "plugin"], element: 1) == 19)
        #expect(map.line(of: ["step"], element: 2) == nil)
        #expect(!map.entries.contains { $0.line == 6 || $0.line == 7 || $0.line == 10 || $0.line == 12 || $0.line == 13 })

        #expect(throws: ConfigError(file: "f.toml", line: 19, message: "step \"b\" uses unknown plugin \"nope\"")) {
            try ConfigLoader.parse(
                text, file: "f.toml",
                catalog: PluginCatalog(manifests: ["ext": PluginManifest(name: "ext", executable: "/bin/true", manifestPath: "/x/ext.toml")])
            )
        }
    }

    @Test func dottedAndQuotedKeys() {
        let text = """
            [ "splash" ]
            'min_display' = "1s"
            [[ step ]]
            retry . attempts = 0
            """
        let map = SourceMap(text)
        #expect(map.line(of: ["splash", "min_display"]) == 2)
        #expect(map.line(of: ["splash", "timeout"]) == 1)
        #expect(map.line(of: ["step", "retry", "attempts"], element: 0) == 4)
        #expect(map.line(of: ["step", "retry", "backoff"], element: 0) == 3)
    }

    @Test func dottedRetryKeyIsLocated() {
        #expect(
            throws: ConfigError(
                file: "f.toml", line: 4, message: "step \"a\": retry.attempts must be at least 1 (it counts the first try)"
            )
        ) {
            try ConfigLoader.parse(
                "[[step]]\nid = \"a\"\nplugin = \"signal\"\nretry.attempts = 0\n", file: "f.toml", catalog: PluginCatalog()
            )
        }
    }

    @Test func inlineStepArrayFallsBackToItsKey() {
        let text = "\n\nstep = [\n  { id = \"a\", plugin = \"signal\" },\n  { id = \"a\", plugin = \"signal\" },\n]\n"
        #expect(throws: ConfigError(file: "f.toml", line: 3, message: "duplicate step id \"a\"")) {
            try ConfigLoader.parse(text, file: "f.toml", catalog: PluginCatalog())
        }
    }
}
