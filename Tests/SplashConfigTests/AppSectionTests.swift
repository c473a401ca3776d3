import SplashConfig
import SplashCore
import Testing

/// `[app]` (design §14): read, checked with located errors, and its `app` step added to the graph.
@Suite struct AppSectionTests {
    func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        try ConfigLoader.parse(text, file: "splashd.toml", catalog: PluginCatalog())
    }

    func problem(_ text: String) -> ConfigError.Problem? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.problems.first
        }
    }

    @Test func anAppSectionIsReadWithItsDefaultsAndAddsTheAppStep() throws {
        let config = try parse("[app]\nunit = \"kiosk-app.service\"\n")
        #expect(config.app == AppSettings(unit: "kiosk-app.service", heartbeat: nil, maxRestarts: 5, restartWindow: .seconds(300)))
        let step = try #require(config.graph["app"])
        #expect(step.plugin == "app-start")
        #expect(step.critical)
        #expect(step.label == "Starting the app")
        let full = try parse("[app]\nunit = \"kiosk@1.service\"\nheartbeat = \"10s\"\nmax_restarts = 3\nrestart_window = \"1m\"\n")
        #expect(full.app == AppSettings(unit: "kiosk@1.service", heartbeat: .seconds(10), maxRestarts: 3, restartWindow: .seconds(60)))
    }

    @Test func withoutAnAppSectionThereIsNoAppStep() throws {
        let config = try parse("")
        #expect(config.app == nil)
        #expect(config.graph["app"] == nil)
    }

    @Test func aStepOfTheFileUsingAppStartTakesThePlaceOfTheAddedOne() throws {
        let config = try parse("[app]\nunit = \"a.service\"\n[[step]]\nid = \"start-it\"\nplugin = \"app-start\"\n")
        #expect(config.graph["app"] == nil)
        #expect(config.graph["start-it"]?.plugin == "app-start")
    }

    @Test(arguments: [
        ("[app]\nheartbeat = \"10s\"\n", 1, "[app] needs unit"),
        ("[app]\nunit = \"kiosk-app\"\n", 2, "must name a .service unit"),
        ("[app]\nunit = \"kiosk app.service\"\n", 2, "contains \" \""),
        ("[app]\nunit = \"kiosk@.service\"\n", 2, "template without an instance"),
        ("[app]\nunit = \"\"\n", 2, "is empty"),
        ("[app]\nunit = \"a.service\"\nheartbeat = \"500ms\"\n", 3, "at least 1s"),
        ("[app]\nunit = \"a.service\"\nmax_restarts = 0\n", 3, "from 1 to 1000"),
        ("[app]\nunit = \"a.service\"\nrestart_window = \"0s\"\n", 3, "at least 1s"),
        ("[app]\nunit = \"a.service\"\nrestarts = 3\n", 3, "restarts"),
        ("[[step]]\nid = \"a\"\nplugin = \"app-start\"\n", 3, "needs an [app] section"),
        ("[app]\nunit = \"a.service\"\n\n[[step]]\nid = \"app\"\nplugin = \"signal\"\n", 5, "step id \"app\" is taken"),
    ])
    func aBadAppSectionIsRefusedAtItsLine(text: String, line: Int, words: String) {
        let found = problem(text)
        #expect(found?.line == line, "\(found?.description ?? "no problem")")
        #expect(found?.message.contains(words) == true, "\(found?.message ?? "no problem")")
    }
}
