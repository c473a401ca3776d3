import Logging
import SplashCore
import SplashPlugins
import TestSupport
import Testing

/// A protocol line that went wrong may carry what the plugin meant as facts (a token, say): the
/// log gets a short excerpt of it, never the whole line.
@Suite("ExternalPlugin: malformed output lines are logged as excerpts", .timeLimit(.minutes(10)))
struct MalformedOutputExcerptTests {
    @Test func aBrokenFactsLineIsLoggedOnlyAsAnExcerpt() async throws {
        let fixture = try PluginFixture()
        let padding = String(repeating: "x", count: 200)
        let path = try fixture.script("leaky.sh", """
            #!/bin/sh
            printf '{"facts":{"note":"%s","token":"SECRET-TOKEN-9"}, oops\\n' '\(padding)'
            printf '{"message": 42, "x": "\\033[31mred"}\\n'
            """)
        _ = try await fixture.plugin(path).run(fixture.context())
        let warnings = fixture.log.records(.warning, containing: "malformed plugin output")
        #expect(warnings.count == 2)
        #expect(!fixture.log.allText.contains("SECRET-TOKEN-9"), "the whole line reached the log")
        #expect(warnings.first?.message.contains(#"{"facts":{"note":"xxx"#) == true)
    }
}
