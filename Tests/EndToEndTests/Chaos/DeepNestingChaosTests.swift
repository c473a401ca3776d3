import Foundation
import SplashClient
import SplashCore
import Testing
import TestSupport

/// Chaos: a deeply nested TOML document, as a config or a plugin manifest, put in place under a
/// running daemon. It used to overflow the parser's stack: SIGHUP killed the daemon with signal 11.
@MainActor @Suite struct DeepNestingChaosTests {
    /// `x = [[[…1…]]]`, `depth` arrays deep.
    static func nested(_ key: String, depth: Int) -> String {
        "\(key) = " + String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) + "\n"
    }

    @Test func aReloadOfADeeplyNestedConfigIsRefusedAndTheDaemonKeepsItsOwn() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        let record = dir.file("options.json")
        try plugins.add("record", "printf '%s' \"$SPLASHD_OPTIONS\" > '\(record)'")
        // The options table is at level 3 (the `step` array, its table, `options`): 125 arrays
        // under it reach the limit of 128, and are handed to the plugin whole.
        let config = """
            [[step]]
            id = "frame"
            plugin = "signal"

            [[step]]
            id = "deep"
            plugin = "record"
            critical = false
            [step.options]

            """ + Self.nested("deep", depth: 125)
        let daemon = try DaemonProcess(config: config, pluginDirectories: [plugins.directory])
        #expect(await waitUntil { FileManager.default.fileExists(atPath: record) })
        let options = try String(contentsOfFile: record, encoding: .utf8)
        #expect(options == "{\"deep\":" + String(repeating: "[", count: 125) + "1" + String(repeating: "]", count: 125) + "}")

        // 30,000 levels (60 KB) in the config and in a plugin manifest, then SIGHUP.
        try daemon.rewriteConfig("# a bomb\n" + Self.nested("x", depth: 30_000))
        try ("exec = \"record.sh\"\n" + Self.nested("deep", depth: 30_000))
            .write(toFile: "\(plugins.directory)/bomb.toml", atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(daemon.waitForLog("reload failed, keeping the running configuration"), "\(daemon.log)")
        let refusal = daemon.logLines(containing: "reload failed").first ?? ""
        #expect(refusal.contains("splashd.toml:2: TOML syntax error: arrays and tables nested more than 128 levels deep"))
        let manifest = daemon.logLines(containing: "plugin manifest rejected").first ?? ""
        #expect(manifest.contains("bomb.toml:2: TOML syntax error: arrays and tables nested more than 128 levels deep"))

        // Still serving the running configuration.
        #expect(daemon.isRunning)
        let client = try daemon.connect()
        guard case .state(let state) = try client.request(.state) else {
            Issue.record("no state")
            return
        }
        #expect(state.steps.map(\.id) == ["frame", "deep"])
        #expect(try client.request(.complete(step: "frame")) == .ok(id: 2))
        #expect(daemon.stop() == 0)
    }
}
