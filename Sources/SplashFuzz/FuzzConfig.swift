import SplashConfig
import SplashCore
import SplashJSON

/// Configuration files and plugin manifests: any document gets an answer (a config or located
/// errors), never a trap.
enum FuzzConfig {
    /// A catalog with one external plugin, so configs can name it.
    static let catalog = PluginCatalog(manifests: [
        "probe": try! PluginCatalog.parseManifest("exec = \"probe.sh\"\n", name: "probe", path: "/fuzz/probe.toml")
    ])

    /// A document the reader accepts comes out as one valid JSON text (toml-test's tagged form).
    static func runTOML(_ bytes: UnsafeRawBufferPointer) {
        guard let json = try? TOMLTaggedJSON.decode(Array(bytes)) else { return }
        FuzzFailure.check((try? JSONValue.parse(Array(json.utf8))) != nil, "tagged JSON that does not parse: \(json.prefix(200))")
    }

    static func runConfig(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            _ = try ConfigLoader.parse(text, file: "fuzz.toml", catalog: catalog)
        } catch {
            FuzzFailure.check(!error.description.isEmpty, "a config error without a message")
        }
    }

    static func runManifest(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            _ = try PluginCatalog.parseManifest(text, name: "fuzz", path: "/fuzz/fuzz.toml")
        } catch {
            FuzzFailure.check(!error.description.isEmpty, "a manifest error without a message")
        }
    }
}
