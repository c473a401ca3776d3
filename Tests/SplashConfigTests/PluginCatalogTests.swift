#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SplashConfig
import SplashCore
import Testing

/// Scanning plugin directories for manifests.
@Suite struct PluginCatalogTests {
    /// A fresh temporary directory, removed by `cleanUp`.
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/splashconfig-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Writes `text` to `root/relative`, creating directories; `executable` sets mode 0755.
    @discardableResult
    func write(_ relative: String, _ text: String, executable: Bool = false) throws -> String {
        let path = root + "/" + relative
        let directory = String(path[..<path.lastIndex(of: "/")!])
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        try FileManager.default.setAttributes([.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: path)
        return path
    }

    @Test func goodManifestWithRelativeExec() throws {
        defer { cleanUp() }
        try write("lib/bin/wifi-wait", "#!/bin/sh\n", executable: true)
        try write("lib/wifi-wait.toml", "exec = \"./bin/wifi-wait\"\ndescription = \"Waits for Wi-Fi\"\ntimeout = \"20s\"\n")
        try write("lib/README", "not a manifest")
        try write("lib/.hidden.toml", "garbage = ")

        let catalog = PluginCatalog.scan(directories: [root + "/lib"])
        #expect(catalog.problems == [])
        #expect(
            catalog.manifests == [
                "wifi-wait": PluginManifest(
                    name: "wifi-wait", executable: root + "/lib/bin/wifi-wait", description: "Waits for Wi-Fi",
                    timeout: .seconds(20), manifestPath: root + "/lib/wifi-wait.toml"
                )
            ]
        )
        #expect(catalog.isKnown("wifi-wait"))
        #expect(catalog.isKnown("signal"))
        #expect(!catalog.isKnown("other"))
    }

    @Test func absoluteExecAndNoTimeout() throws {
        defer { cleanUp() }
        let tool = try write("tools/beep", "#!/bin/sh\n", executable: true)
        try write("plugins/beep.toml", "exec = \"\(tool)\"\n")
        let catalog = PluginCatalog.scan(directories: [root + "/plugins"])
        #expect(catalog.problems == [])
        #expect(catalog.manifests["beep"]?.executable == tool)
        #expect(catalog.manifests["beep"]?.timeout == nil)
        #expect(catalog.manifests["beep"]?.description == nil)
    }

    @Test func brokenManifestsAreReportedAndSkipped() throws {
        defer { cleanUp() }
        let tool = try write("tools/ok", "#!/bin/sh\n", executable: true)
        try write("tools/plain", "data")
        try write("p/good.toml", "exec = \"\(tool)\"\n")
        let syntax = try write("p/syntax.toml", "exec = \"\(tool)\"\ntimeout = \n")
        let unknown = try write("p/unknown.toml", "exec = \"\(tool)\"\n\nargs = [\"-v\"]\n")
        let noExec = try write("p/noexec.toml", "description = \"x\"\n")
        let badTimeout = try write("p/badtimeout.toml", "exec = \"\(tool)\"\ntimeout = \"forever\"\n")
        let wrongType = try write("p/wrongtype.toml", "exec = [\"\(tool)\"]\n")
        let notExecutable = try write("p/notexec.toml", "exec = \"../tools/plain\"\n")
        let missing = try write("p/missing.toml", "\nexec = \"/nonexistent/bin/x\"\n")

        let catalog = PluginCatalog.scan(directories: [root + "/p"])
        #expect(Set(catalog.manifests.keys) == ["good"])
        let problems = Dictionary(uniqueKeysWithValues: catalog.problems.map { ($0.file, $0) })
        #expect(problems.count == 7)
        #expect(problems[syntax]?.line == 2)
        #expect(problems[syntax]?.message.hasPrefix("TOML syntax error: ") == true)
        #expect(problems[unknown] == ConfigError(file: unknown, line: 3, message: "unknown key \"args\""))
        #expect(problems[noExec] == ConfigError(file: noExec, line: nil, message: "missing required key \"exec\""))
        #expect(problems[badTimeout]?.line == 2)
        #expect(problems[badTimeout]?.message.hasPrefix("bad duration \"forever\" for timeout: ") == true)
        #expect(
            problems[wrongType]
                == ConfigError(file: wrongType, line: 1, message: "wrong type for exec: expected a string, found an array")
        )
        #expect(
            problems[notExecutable]
                == ConfigError(
                    file: notExecutable, line: 1,
                    message: "exec \"\(root)/tools/plain\" is not an executable file"
                )
        )
        #expect(
            problems[missing]
                == ConfigError(file: missing, line: 2, message: "exec \"/nonexistent/bin/x\" is not an executable file")
        )
        #expect(problems[syntax]?.description.hasPrefix("\(syntax):2: TOML syntax error") == true)
    }

    @Test func missingDirectoryIsSkipped() throws {
        defer { cleanUp() }
        let tool = try write("tools/ok", "#!/bin/sh\n", executable: true)
        try write("b/ok.toml", "exec = \"\(tool)\"\n")
        let catalog = PluginCatalog.scan(directories: [root + "/nope", root + "/b", "/nonexistent/splashd/plugins.d"])
        #expect(catalog.problems == [])
        #expect(Set(catalog.manifests.keys) == ["ok"])
    }

    @Test func laterDirectoryOverrides() throws {
        defer { cleanUp() }
        let first = try write("tools/first", "#!/bin/sh\n", executable: true)
        let second = try write("tools/second", "#!/bin/sh\n", executable: true)
        try write("vendor/wifi.toml", "exec = \"\(first)\"\ntimeout = \"5s\"\n")
        try write("vendor/keep.toml", "exec = \"\(first)\"\n")
        try write("vendor/fallback.toml", "exec = \"\(first)\"\n")
        try write("local/wifi.toml", "exec = \"\(second)\"\n")
        let broken = try write("local/fallback.toml", "exec = \"\(second)\"\nbogus = 1\n")

        let catalog = PluginCatalog.scan(directories: [root + "/vendor", root + "/local"])
        #expect(catalog.manifests["wifi"]?.executable == second)
        #expect(catalog.manifests["wifi"]?.timeout == nil)
        #expect(catalog.manifests["wifi"]?.manifestPath == root + "/local/wifi.toml")
        #expect(catalog.manifests["keep"]?.executable == first)
        // A broken override is reported and the earlier manifest stays in effect.
        #expect(catalog.manifests["fallback"]?.executable == first)
        #expect(catalog.problems == [ConfigError(file: broken, line: 2, message: "unknown key \"bogus\"")])
    }

    @Test func parseManifestResolvesAgainstTheManifestsDirectory() throws {
        let manifest = try PluginCatalog.parseManifest(
            "exec = \"bin//x\"\n", name: "x", path: "/usr/lib/splashd/plugins/x.toml"
        )
        #expect(manifest.executable == "/usr/lib/splashd/plugins/bin/x")
        #expect(manifest.name == "x")
        #expect(manifest.manifestPath == "/usr/lib/splashd/plugins/x.toml")
    }

    @Test func manifestTimeoutFlowsIntoSteps() throws {
        defer { cleanUp() }
        let tool = try write("tools/ok", "#!/bin/sh\n", executable: true)
        try write("p/slow.toml", "exec = \"\(tool)\"\ntimeout = \"45s\"\n")
        let configPath = try write(
            "splashd.toml", "[[step]]\nid = \"s\"\nplugin = \"slow\"\n[[step]]\nid = \"t\"\nplugin = \"slow\"\ntimeout = \"1s\"\n"
        )
        let config = try ConfigLoader.load(path: configPath, catalog: PluginCatalog.scan(directories: [root + "/p"]))
        #expect(config.source == configPath)
        #expect(config.graph.steps.map(\.timeout) == [.seconds(45), .seconds(1)])
    }

    @Test func loadOrDefaultFallsBackOnlyWhenTheFileIsMissing() throws {
        defer { cleanUp() }
        let fallback = try ConfigLoader.loadOrDefault(path: root + "/absent.toml", catalog: PluginCatalog())
        #expect(fallback == DaemonConfig.embeddedDefault())
        let broken = try write("broken.toml", "[splash]\nbogus = 1\n")
        #expect(throws: ConfigError(file: broken, line: 2, message: "unknown key \"bogus\" in [splash]")) {
            try ConfigLoader.loadOrDefault(path: broken, catalog: PluginCatalog())
        }
    }
}
