import Logging
import SplashCore
import SplashPlugins
import TestSupport
import Testing

@Suite("ExternalPlugin: output protocol and logging", .timeLimit(.minutes(10)))
struct ExternalPluginOutputTests {
    @Test func reportsProgressAndMessagesAndMergesFacts() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("report.sh", """
            #!/bin/sh
            echo '{"message":"Signing in"}'
            echo '{"progress":0.25}'
            echo '{"facts":{"user":"kiosk","tries":1}}'
            echo '{"progress":7}'
            echo '{"progress":0.5,"message":"Almost"}'
            printf '{"facts":{"tries":2,"token":null}}'
            """)
        let facts = try await fixture.plugin(path).run(fixture.context())

        #expect(facts == ["user": .string("kiosk"), "tries": .number(2), "token": .null])
        #expect(fixture.reports.reports == [
            .message("Signing in"), .progress(0.25), .progress(1), .progress(0.5), .message("Almost"),
        ])
    }

    @Test func logsPlainGarbageAndStderrLinesWithTheStepID() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("chatty.sh", """
            #!/bin/sh
            echo 'plain text line'
            echo '{"progress": oops'
            echo '{"message": 42}'
            echo '[1,2]'
            echo 'warming up the cache' >&2
            echo '{"facts":{"ok":true}}'
            """)
        let facts = try await fixture.plugin(path, name: "chatty").run(fixture.context(step: "warmup"))
        #expect(facts == ["ok": .bool(true)])

        let expectations: [(String, String)] = [
            ("plain text line", "stdout"),
            ("{\"progress\": oops", "stdout"),
            ("{\"message\": 42}", "stdout"),
            ("[1,2]", "stdout"),
            ("warming up the cache", "stderr"),
        ]
        for (text, stream) in expectations {
            let records = fixture.log.records(containing: text)
            #expect(records.count == 1, "one record for \(text)")
            #expect(records.first?.metadata["step"] == "warmup", "step id on \(text)")
            #expect(records.first?.metadata["stream"] == .string(stream), "stream of \(text)")
        }
        #expect(fixture.log.records(containing: "{\"progress\": oops").first?.level == .warning)
        #expect(fixture.log.records(containing: "{\"message\": 42}").first?.message.contains("not a string") == true)
        // Protocol lines are reports, not log lines.
        #expect(fixture.log.records(containing: "\"facts\"").isEmpty)
        #expect(fixture.reports.reports.isEmpty)
    }

    @Test func logsOverlongLinesCutAndGoesOn() async throws {
        let fixture = try PluginFixture()
        // 200 000 'x' on stdout and stderr (well past 64 KiB), then normal lines.
        let path = try fixture.script("long.sh", """
            #!/bin/sh
            head -c 200000 /dev/zero | tr '\\0' x
            echo
            head -c 200000 /dev/zero | tr '\\0' y >&2
            echo >&2
            echo '{"message":"after the long line"}'
            echo 'short stderr' >&2
            """)
        _ = try await fixture.plugin(path).run(fixture.context(step: "long"))

        let stdoutRecords = fixture.log.records(containing: "xxxxxxxx")
        #expect(stdoutRecords.count == 1)
        let stdoutLine = try #require(stdoutRecords.first)
        #expect(stdoutLine.message.hasPrefix(String(repeating: "x", count: ExternalPlugin.maxLineLength) + " [truncated"))
        #expect(stdoutLine.metadata["step"] == "long")
        let stderrRecords = fixture.log.records(containing: "yyyyyyyy")
        #expect(stderrRecords.count == 1)
        #expect(stderrRecords.first?.message.hasPrefix(String(repeating: "y", count: ExternalPlugin.maxLineLength) + " [truncated") == true)
        #expect(fixture.reports.messages == ["after the long line"])
        #expect(fixture.log.records(containing: "short stderr").count == 1)
    }
}
