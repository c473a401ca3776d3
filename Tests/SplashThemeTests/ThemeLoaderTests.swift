#if canImport(Glibc)
import Glibc
#endif
import SplashConfig
import SplashCore
import Testing
import TestSupport
import SplashTheme

/// Themes are read to the letter: every problem with its line, nothing that could reach the page
/// as markup.
@Suite struct ThemeLoaderTests {
    func load(_ toml: String, files: [String: String] = [:]) throws -> Result<Theme, ConfigError> {
        let directory = try TemporaryDirectory(prefix: "splashd-theme")
        defer { directory.remove() }
        _ = try directory.write("theme.toml", toml)
        for (name, text) in files { _ = try directory.write(name, text) }
        do {
            return .success(try ThemeLoader.load(directory: directory.path).theme)
        } catch {
            return .failure(error)
        }
    }

    @Test func theShippedThemesAreValid() throws {
        let loaded = try ThemeLoader.load(directory: Binaries.packageRoot + "/renderer/themes/reference")
        let reference = loaded.theme
        #expect(Set(loaded.files.keys) == ["logo.svg"] && loaded.files["logo.svg"]?.contentType == "image/svg+xml")
        #expect(reference.light.background == "#0D7377")
        #expect(reference.dark == Theme.Palette(
            background: "#1E1E1E", foreground: "#E0E0E0", secondary: "#A0A0A0", logoBackground: "#FFFFFF", indicator: "#14A0A5"))
        #expect(reference.font == "Inter" && reference.logo == "logo.svg" && reference.indicator == .dots)
        let neutral = try ThemeLoader.load(directory: Binaries.packageRoot + "/renderer/themes/default").theme
        #expect(neutral.indicator == .spinner && neutral.showProgress && neutral.showStep)
    }

    /// Texts are bounded in bytes as well as characters (120 × "Z" + 1000 combining marks was
    /// 120 characters and 240 KB), and follow the rule every state's text is cleaned to
    /// (`DisplayText`): C1 controls (U+0085 split the name into lines on KMS), line separators and
    /// bidirectional overrides are refused too.
    @Test func textsAreBoundedInBytesAndC1ControlsAreRefused() throws {
        let zalgo = String(repeating: "Z" + String(repeating: "\u{0301}", count: 1000), count: 120)
        let refused = "must not contain control characters, line separators or bidirectional overrides"
        for (text, problem) in [
            (zalgo, "must have 1 to 200 characters and at most 800 bytes"),
            ("A\u{85}B", refused),
            ("A\u{9B}B", refused),
            ("A\u{2028}B", refused),
            ("A\u{202E}B", refused),
            ("A\u{2067}B\u{2069}", refused),
        ] {
            for key in ["name", "tagline"] {
                let toml = key == "name" ? "name = \"\(text)\"\n" : "name = \"N\"\ntagline = \"\(text)\"\n"
                guard case .failure(let error) = try load(toml) else { Issue.record("\(key) accepted"); continue }
                #expect(error.problems.first?.message == "\(key) \(problem)", "\(error)")
            }
            guard case .failure(let error) = try load("name = \"N\"\ntaglines = [\"ok\", \"\(text)\"]\n") else {
                Issue.record("taglines accepted")
                continue
            }
            #expect(error.problems.first?.message == "each of taglines \(problem)", "\(error)")
        }
        // 200 four-byte characters is the most.
        guard case .success = try load("name = \"\(String(repeating: "😀", count: 200))\"\n") else {
            Issue.record("refused")
            return
        }
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

    @Test func aFontFileNeedsItsFamilyAndExists() throws {
        let theme = try load("name = \"A\"\nfont = \"Brand\"\nfont_file = \"Brand.woff2\"\n", files: ["Brand.woff2": "wOF2"]).get()
        #expect(theme.font == "Brand" && theme.fontFile == "Brand.woff2")
        guard case .failure(let error) = try load("name = \"A\"\nfont_file = \"Brand.woff2\"\n", files: ["Brand.woff2": "wOF2"]) else {
            Issue.record("font_file without font was accepted")
            return
        }
        #expect(error.line == 2 && error.message.contains("font_file needs font"))
        guard case .failure(let missing) = try load("name = \"A\"\nfont = \"B\"\nfont_file = \"B.ttf\"\n") else {
            Issue.record("a missing font file was accepted")
            return
        }
        #expect(missing.message.contains("font_file \"B.ttf\" is not in the theme's directory"))
    }

    @Test func rotateIsAQuarterTurnClockwise() throws {
        #expect(try load("name = \"A\"\nrotate = 270\n").get().rotate == 270)
        #expect(try load("name = \"A\"\n").get().rotate == nil)
        for bad in ["45", "-90", "\"90\""] {
            guard case .failure(let error) = try load("name = \"A\"\n\nrotate = \(bad)\n") else {
                Issue.record("rotate = \(bad) was accepted")
                continue
            }
            #expect(error.line == 3 && error.message.contains("rotate"))
        }
    }

    @Test func taglinesAndTransitionsAreRead() throws {
        let theme = try load("""
            name = "A"
            taglines = ["One", "Two", "Three"]
            [transitions]
            home = "slide"
            login = "none"
            """).get()
        #expect(theme.taglines == ["One", "Two", "Three"] && theme.tagline == nil)
        #expect(theme.transitions == Theme.Transitions(home: .slide, onboarding: .slide, login: .none))
        let reveal = try load("name = \"A\"\nlogo = \"l.svg\"\n[transitions]\nexit = \"reveal\"\n", files: ["l.svg": "<svg/>"]).get()
        #expect(reveal.transitions.exit == .reveal)
        #expect(try load("name = \"A\"\n").get().transitions == Theme.Transitions(home: .crossfade, onboarding: .slide, login: .fade))
    }

    @Test func anUnknownTransitionOrTwoKindsOfTaglineAreRefusedWithTheirLines() throws {
        guard case .failure(let error) = try load("""
            name = "A"
            tagline = "One"
            taglines = ["Two"]
            [transitions]
            onboarding = "zoom"
            exit = "reveal"
            """)
        else {
            Issue.record("accepted")
            return
        }
        let problems = error.problems.map { "\($0.line.map(String.init) ?? "-"): \($0.message)" }
        #expect(problems.contains { $0.hasPrefix("3:") && $0.contains("taglines and tagline cannot both be set") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("5:") && $0.contains(#"onboarding must be one of "crossfade", "slide", "fade", "none", not "zoom""#) }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("6:") && $0.contains("exit = \"reveal\" needs a logo") }, "\(problems)")
        guard case .failure(let empty) = try load("name = \"A\"\ntaglines = []\n") else {
            Issue.record("no taglines accepted")
            return
        }
        #expect(empty.line == 2 && empty.message.contains("1 to 64 entries"))
    }

    @Test func anErrorColorWithTooLittleContrastIsAWarning() throws {
        // The designs' red on the reference theme's teal: 1.5:1, under the title's 3:1.
        let teal = try load("name = \"A\"\nappearance = \"light\"\n[colors.light]\nbackground = \"#0D7377\"\n").get()
        #expect(teal.light.error == "#EA5455")
        let warnings = ThemeLoader.warnings(for: teal)
        #expect(warnings.count == 1 && warnings[0].contains("[colors.light] has a contrast of 1.5:1") && warnings[0].contains("3:1"), "\(warnings)")
        // A light red that reads on teal, and the neutral palettes: nothing to say.
        let pink = try load("name = \"A\"\nappearance = \"light\"\n[colors.light]\nbackground = \"#0D7377\"\nerror = \"#FFC2C2\"\n").get()
        #expect(ThemeLoader.warnings(for: pink).isEmpty)
        #expect(ThemeLoader.warnings(for: try load("name = \"A\"\n").get()).isEmpty)
        #expect(ThemeColor("#FFFFFF").contrast(on: "#000000").map { ($0 * 10).rounded() } == 210)
        #expect(ThemeColor("rgba(255, 255, 255, 0)").contrast(on: "#000000") == 1)
        #expect(ThemeColor("#FFF").contrast(on: .transparent) == nil)
    }

    @Test func aThemeMayGiveItsOwnWordsToAnErrorCode() throws {
        let theme = try load("""
            name = "A"
            [errors.network]
            title = "No network"
            detail = "Check the cable"
            [errors.timeout]
            title = "Almost there"
            """).get()
        #expect(theme.errorTexts["network"] == Theme.ErrorText(title: "No network", detail: "Check the cable"))
        #expect(theme.errorTexts["timeout"] == Theme.ErrorText(title: "Almost there"))
        guard case .failure(let error) = try load("name = \"A\"\n[errors.nope]\ntitle = \"x\"\n") else {
            Issue.record("an unknown code was accepted")
            return
        }
        #expect(error.line == 2 && error.message.contains("nope"), "\(error)")
    }

    @Test func aMissingLogoFileIsAnError() throws {
        guard case .failure(let error) = try load("name = \"A\"\nlogo = \"gone.svg\"\n") else {
            Issue.record("a theme naming a missing logo was accepted")
            return
        }
        #expect(error.line == 2 && error.message.contains("logo \"gone.svg\" is not in the theme's directory"))
    }

    @Test func theThemesFilesAreReadWithItAndBounded() throws {
        let files = try load("name = \"A\"\n", files: ["a.png": "png", "notes.txt": "not served"])
        #expect(throws: Never.self) { try files.get() }
        let big = String(repeating: "x", count: ThemeLoader.maximumAssetSize + 1)
        guard case .failure(let error) = try load("name = \"A\"\n", files: ["huge.woff2": big]) else {
            Issue.record("a font over 2 MiB was accepted")
            return
        }
        #expect(error.file.hasSuffix("/huge.woff2") && error.message.contains("cannot read theme file: larger than 2 MiB"), "\(error)")
    }

    /// A theme file that is a symbolic link is not followed (it served /etc/passwd as passwd.png),
    /// and neither is a theme.toml that is one; the check names the file.
    @Test func symbolicLinksInAThemeAreRefused() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-theme")
        defer { directory.remove() }
        _ = try directory.write("theme.toml", "name = \"A\"\n")
        #expect(symlink("/etc/passwd", directory.file("passwd.png")) == 0)
        #expect {
            try ThemeLoader.load(directory: directory.path)
        } throws: { error in
            let error = error as? ConfigError
            return error?.file == directory.file("passwd.png")
                && error?.message == "cannot read theme file: a symbolic link, which is not followed"
        }
        #expect(unlink(directory.file("passwd.png")) == 0)
        let real = try directory.write("real.toml", "name = \"A\"\n")
        #expect(unlink(directory.file("theme.toml")) == 0 && symlink(real, directory.file("theme.toml")) == 0)
        #expect {
            try ThemeLoader.load(directory: directory.path)
        } throws: { error in
            (error as? ConfigError)?.message == "cannot read theme: a symbolic link, which is not followed"
        }
    }

    @Test(arguments: [
        ("#0D7377", true), ("#fff", true), ("#00000080", true), ("transparent", true),
        ("rgba(255, 255, 255, 0.8)", true), ("rgb(10%,20%,30%)", true),
        ("#12345", false), ("red", false), ("rgba(1,2)", false), ("rgb(1,2,3);x:y", false),
        ("url(x)", false), ("", false), ("rgba(1,2,3,calc(1))", false), ("rgb(.,%,.)", false),
        ("rgba(1,2,3)", false), ("rgb(1,2,3,0.5)", false), ("rgb(1..2,3,4)", false), ("#0D7", true), ("#0D77", true),
    ])
    func colorGrammar(text: String, valid: Bool) {
        #expect(ThemeColor.isColor(text) == valid)
        #expect((ThemeColor(css: text) != nil) == valid)
    }

    @Test func assetNamesArePlainFileNames() {
        #expect(ThemeAssets.type(of: "logo.svg") == "image/svg+xml")
        #expect(ThemeAssets.type(of: "Inter.woff2") == "font/woff2")
        for name in ["../x.svg", "a/b.png", ".hidden.png", "theme.toml", "x.html", "a b.svg", "x\".svg", "x).woff2", "é.png"] {
            #expect(ThemeAssets.type(of: name) == nil, "\(name)")
        }
    }
}
