import SplashConfig
import SplashCore
import Testing
import TestSupport

/// `packaging/splashd.toml`, which the package and `make install` put at /etc/splashd/splashd.toml:
/// the embedded default written out, with `control_group = "splash"` its one difference.
@Suite struct PackagedConfigTests {
    static let path = "\(Binaries.packageRoot)/packaging/splashd.toml"

    /// The group exists on the systems the package installs to (its postinst creates it).
    static let withSplashGroup = SystemLookup(groupExists: { $0 == "splash" })

    @Test func itIsTheEmbeddedDefaultWithTheSplashControlGroup() throws {
        let config = try ConfigLoader.load(path: Self.path, catalog: PluginCatalog(), system: Self.withSplashGroup)
        let embedded = DaemonConfig.embeddedDefault()
        #expect(config.settings == embedded.settings)
        #expect(config.daemon == embedded.daemon)
        var socket = embedded.socket
        socket.controlGroup = "splash"
        #expect(config.socket == socket)
        #expect(config.graph == embedded.graph)
        // `==` of steps leaves out the checked options of the built-ins: compare them too.
        for (step, expected) in zip(config.graph.steps, embedded.graph.steps) {
            #expect(step.builtin == expected.builtin, "\(step.id)")
        }
    }
}
