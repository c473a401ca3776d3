import SplashConfig
import SplashCore
import Testing
import TestSupport

/// Themes are read to the letter: every problem with its line, nothing that could reach the page
/// as markup.
@Suite struct ThemeLoaderTests {
    func load(_ toml: String, files: [String: String] = [:]) throws -> Result<Theme, ConfigError> {
        let directory = try TemporaryDirectory(prefix: "splashd-theme")
        defer { directory.remove() }
        _ = try directory.write("theme.toml", toml)
        for (name, text) in files { _ = try directory.write(name, text) }
        do {
            return .success(try ThemeLoader.load(directory: directory.path))
        } catch {
            return .failure(error)
        }
    }

    @Test func theShippedThemesAreValid() throws {
        let reference = try ThemeLoader.load(directory: Binaries.packageRoot + "/renderer/themes/reference")
        #expect(reference.light.background == "#0D7377")
        #expect(reference.dark == Theme.Palette(
            background: "#1E1E1E", foreground: "#E0E0E0", secondary: "#A0A0A0", logoBackground: "#FFFFFF", indicator: "#14A0A5"))
        #expect(reference.font == "Inter" && reference.logo == "logo.svg" && reference.indicator == .dots)
        let neutral = try ThemeLoader.load(directory: Binaries.packageRoot + "/renderer/themes/default")
        #expect(neutral.indicator == .spinner && neutral.showProgress && neutral.showStep)
    }

    @Test func aFullThemeIsRead() throws {
        let theme = try load(
            """
            name = "Orders"
            tagline = "Ready"
            logo = "mark.png"
            appearance = "dark"
            motion = "reduce"
            app_step = "first-frame"
            [colors.light]
            background = "rgba(1, 2, 3, 0.5)"
            [destinations]
            home = "http://127.0.0.1:8080/"
            login = "https://app.example/login"
            """, files: ["mark.png": "png"]
        ).get()
        #expect(theme.appearance == .dark && theme.motion == .reduce && theme.appStep == "first-frame")
        #expect(theme.light.background == "rgba(1, 2, 3, 0.5)")
        #expect(theme.light.foreground == Theme.neutralLight.foreground, "unset colors keep the neutral ones")
        #expect(theme.destinations == Theme.Destinations(home: "http://127.0.0.1:8080/", login: "https://app.example/login"))
    }

    @Test func everyProblemIsReportedWithItsLine() throws {
        let result = try load(
            """
            tagline = "x"
            appearance = "sepia"
            logo = "../etc/passwd"
            colour = 1
            [colors.light]
            background = "red;}body{display:none"
            [destinations]
            home = "javascript:alert(1)"
            """
        )
        guard case .failure(let error) = result else {
            Issue.record("a broken theme was accepted")
            return
        }
        let lines = error.problems.map(\.line)
        #expect(error.problems.count == 6, "\(error)")
        #expect(lines.contains(2) && lines.contains(3) && lines.contains(4) && lines.contains(6) && lines.contains(8))
        #expect(error.description.contains("missing key \"name\""))
        #expect(error.description.contains("appearance must be one of \"auto\", \"light\", \"dark\""))
        #expect(error.description.contains("unknown key \"colour\""))
        #expect(error.description.contains("must be a color"))
        #expect(error.description.contains("absolute http:// or https:// URL"))
    }

    @Test func aMissingLogoFileIsAnError() throws {
        guard case .failure(let error) = try load("name = \"A\"\nlogo = \"gone.svg\"\n") else {
            Issue.record("a theme naming a missing logo was accepted")
            return
        }
        #expect(error.line == 2 && error.message.contains("cannot read logo \"gone.svg\""))
    }

    @Test(arguments: [
        ("#0D7377", true), ("#fff", true), ("#00000080", true), ("transparent", true),
        ("rgba(255, 255, 255, 0.8)", true), ("rgb(10%,20%,30%)", true),
        ("#12345", false), ("red", false), ("rgba(1,2)", false), ("rgb(1,2,3);x:y", false),
        ("url(x)", false), ("", false), ("rgba(1,2,3,calc(1))", false),
    ])
    func colorGrammar(text: String, valid: Bool) {
        #expect(ThemeLoader.isColor(text) == valid)
    }

    @Test func assetNamesArePlainFileNames() {
        #expect(ThemeLoader.assetType("logo.svg") == "image/svg+xml")
        #expect(ThemeLoader.assetType("Inter.woff2") == "font/woff2")
        for name in ["../x.svg", "a/b.png", ".hidden.png", "theme.toml", "x.html", "a b.svg"] {
            #expect(ThemeLoader.assetType(name) == nil, "\(name)")
        }
    }
}
