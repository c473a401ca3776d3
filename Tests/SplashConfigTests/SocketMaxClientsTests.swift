import SplashConfig
import Testing

/// `[socket] max_clients`: the most clients the daemon serves at once.
@Suite struct SocketMaxClientsTests {
    @Test func defaultsTo1024AndTakesAPositiveInteger() throws {
        #expect(try ConfigLoader.parse("", file: "a.toml", catalog: PluginCatalog()).socket.maxClients == 1024)
        let config = try ConfigLoader.parse("[socket]\nmax_clients = 16\n", file: "b.toml", catalog: PluginCatalog())
        #expect(config.socket.maxClients == 16)
    }

    @Test(arguments: ["0", "-1", "1000001", "\"16\"", "1.5"])
    func otherValuesAreRejectedAtTheirLine(_ value: String) {
        do {
            _ = try ConfigLoader.parse("[socket]\nmax_clients = \(value)\n", file: "c.toml", catalog: PluginCatalog())
            Issue.record("max_clients = \(value) was accepted")
        } catch {
            #expect(error.description.contains("c.toml:2"), "\(error)")
            #expect(error.description.contains("max_clients"), "\(error)")
        }
    }
}
