#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SplashCore
import SplashJSON
import SplashPlugins
import Testing
import TestSupport

@Suite("Shipped plugins (plugins/)", .timeLimit(.minutes(10)))
struct ShippedPluginTests {
    /// The repository's `plugins/` folder.
    private static let pluginDirectory: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3) // Tests/SplashPluginsTests/ShippedPluginTests.swift
        return components.joined(separator: "/") + "/plugins"
    }()

    /// Reads `plugins/NAME.toml` (just its `key = "value"` lines) into a manifest.
    ///
    /// Not the daemon's manifest parser (that lives in SplashConfig); enough to check that the
    /// shipped manifests name an executable that works.
    static func manifest(_ name: String) throws -> PluginManifest {
        let manifestPath = "\(pluginDirectory)/\(name).toml"
        let text = try String(contentsOfFile: manifestPath, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].filter { $0 != " " }
            let value = parts[1].drop { $0 == " " }
            guard value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 else { continue }
            values[key] = String(value.dropFirst().dropLast())
        }
        let exec = try #require(values["exec"], "\(name).toml has exec")
        #expect(values["description"]?.isEmpty == false, "\(name).toml has a description")
        #expect(values["timeout"]?.hasSuffix("s") == true, "\(name).toml has a timeout")
        return PluginManifest(
            name: name,
            executable: "\(pluginDirectory)/\(exec)",
            description: values["description"],
            manifestPath: manifestPath
        )
    }

    @Test func waitDeviceSucceedsOnceThePathExists() async throws {
        let fixture = try PluginFixture()
        let device = fixture.path("card0")
        let plugin = ExternalPlugin(manifest: try Self.manifest("wait-device"), grace: .milliseconds(200), environment: .ofThisProcess)
        let context = fixture.context(step: "gpu", options: ["path": .string(device)])

        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { fixture.reports.messages == ["Waiting for \(device)"] })
        #expect(FileManager.default.createFile(atPath: device, contents: Data()))
        let outcome = try #require(await result(of: task))

        #expect(try outcome.get() == ["device": .string(device)])
    }

    @Test func waitDeviceDefaultsToTheFirstGPU() async throws {
        let fixture = try PluginFixture()
        let plugin = ExternalPlugin(manifest: try Self.manifest("wait-device"), grace: .milliseconds(200), environment: .ofThisProcess)
        let context = fixture.context(step: "gpu")
        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { fixture.reports.messages.first == "Waiting for /dev/dri/card0" })
        // Whether or not this machine has a GPU: stop it and check it stops cleanly.
        task.cancel()
        let outcome = try #require(await result(of: task))
        if case .success(let facts) = outcome {
            #expect(facts == ["device": .string("/dev/dri/card0")])
        } else {
            #expect(throws: CancellationError.self) { try outcome.get() }
        }
    }

    @Test func waitNetworkSucceedsOnceTheLoopbackPortListens() async throws {
        let fixture = try PluginFixture()
        let listener = try LoopbackListener()
        let plugin = ExternalPlugin(manifest: try Self.manifest("wait-network"), grace: .milliseconds(200), environment: .ofThisProcess)
        let options: [String: JSONValue] = [
            "host": .string("127.0.0.1"), "port": .number(Double(listener.port)), "interval": .number(0.05),
        ]
        let context = fixture.context(step: "network", options: options)

        let task = Task { try await plugin.run(context) }
        #expect(await waitUntil { fixture.reports.messages == ["Waiting for 127.0.0.1:\(listener.port)"] })
        try listener.listen()
        let outcome = try #require(await result(of: task))

        #expect(try outcome.get() == [
            "reachable": .bool(true), "host": .string("127.0.0.1"), "port": .number(Double(listener.port)),
        ])
    }

    @Test func waitNetworkRejectsHostWithoutPort() async throws {
        let fixture = try PluginFixture()
        let plugin = ExternalPlugin(manifest: try Self.manifest("wait-network"), grace: .milliseconds(200), environment: .ofThisProcess)
        let error = await #expect(throws: StepFailure.self) {
            try await plugin.run(fixture.context(step: "network", options: ["host": .string("127.0.0.1")]))
        }
        #expect(error?.retryable == false)
        #expect(error?.message.contains("host and port go together") == true)
    }
}
