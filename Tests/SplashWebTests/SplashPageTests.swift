import SplashConfig
import SplashCore
import SplashJSON
import SplashWeb
import Testing
import SplashTheme

/// The theme is written into the page so that its first paint is the theme's, and no theme value
/// can become markup.
@Suite struct SplashPageTests {
    let template = """
        <html data-motion="{{motion}}"><head><!--splashd:style--><!--splashd:theme--></head>
        <body><main aria-label="{{label}}"><img src="{{logo}}"><h1>{{name}}</h1><p>{{tagline}}</p></main></body></html>
        """

    @Test func colorsTextsAndThemeAreWrittenIn() throws {
        var theme = Theme(name: "Orders & <Co>", tagline: "\"Fast\"", logo: "logo.svg", motion: .reduce)
        theme.light.background = "#0D7377"
        theme.dark.background = "#1E1E1E"
        let page = SplashPage.render(template: template, theme: theme)
        #expect(page.contains("<style>:root{"))
        #expect(page.contains("--bg:#0D7377;"))
        #expect(page.contains("@media (prefers-color-scheme: dark){:root{--bg:#1E1E1E;"))
        #expect(page.contains("<h1>Orders &amp; &lt;Co&gt;</h1>"))
        #expect(page.contains("<p>&quot;Fast&quot;</p>"))
        #expect(page.contains("aria-label=\"Orders &amp; &lt;Co&gt; splash screen, loading\""))
        #expect(page.contains("src=\"/theme/logo.svg\""))
        #expect(page.contains("data-motion=\"reduce\""))
        #expect(!page.contains("{{") && !page.contains("<!--splashd:"))
    }

    @Test func aThemeFontFileIsDeclared() {
        let theme = Theme(name: "A", font: "Brand")
        #expect(!SplashPage.render(template: template, theme: theme).contains("@font-face"), "an installed font needs none")
        var shipped = theme
        shipped.fontFile = "Brand.woff2"
        let page = SplashPage.render(template: template, theme: shipped)
        #expect(page.contains("@font-face{font-family:\"Brand\";src:url(\"/theme/Brand.woff2\")"))
        #expect(page.contains("--font:\"Brand\",system-ui"))
    }

    @Test func aFixedAppearanceHasNoMediaQuery() {
        var theme = Theme(name: "A", appearance: .dark)
        theme.dark.background = "#1E1E1E"
        let page = SplashPage.render(template: template, theme: theme)
        #expect(page.contains("--bg:#1E1E1E;"))
        #expect(!page.contains("prefers-color-scheme"))
    }

    @Test func theThemeJSONCannotCloseItsScriptElement() throws {
        let theme = Theme(name: "</script><script>alert(1)</script>", tagline: "a\u{2028}b & c")
        let json = SplashPage.themeJSON(theme)
        #expect(!json.contains("<") && !json.contains(">") && !json.contains("&") && !json.contains("\u{2028}"))
        let value = try JSONValue.parse(Array(json.utf8))
        #expect(value.objectValue?["name"]?.stringValue == theme.name, "escapes read back as the same text")
        #expect(value.objectValue?["tagline"]?.stringValue == theme.tagline)
    }
}
