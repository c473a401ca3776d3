import SplashCore

/// A theme of the reference renderer (`splashd-web`): what the splash page shows and how.
///
/// Read from `theme.toml` in a theme directory by `ThemeLoader`; every value is checked there, so
/// the renderer can put colors into CSS and texts into HTML without further thought (colors are
/// of a closed grammar, texts are escaped where they are written).
public struct Theme: Sendable, Equatable {
    /// The colors of one appearance.
    public struct Palette: Sendable, Equatable {
        /// The page, from its first paint.
        public var background: ThemeColor
        /// The app's name and the error's message.
        public var foreground: ThemeColor
        /// The tagline and the error's detail.
        public var secondary: ThemeColor
        /// The circle behind the logo; `transparent` for none.
        public var logoBackground: ThemeColor
        /// The loading indicator, the progress bar and the buttons' focus ring.
        public var indicator: ThemeColor
        /// The error view's ⊗ and its title ("Unable to connect"): the UrbanNest red by default.
        public var error: ThemeColor

        public init(
            background: ThemeColor, foreground: ThemeColor, secondary: ThemeColor, logoBackground: ThemeColor, indicator: ThemeColor,
            error: ThemeColor = Theme.errorRed
        ) {
            self.background = background
            self.foreground = foreground
            self.secondary = secondary
            self.logoBackground = logoBackground
            self.indicator = indicator
            self.error = error
        }
    }

    /// Which palette the page uses.
    public enum Appearance: String, Sendable, CaseIterable {
        /// The system's (`prefers-color-scheme`).
        case auto, light, dark
    }

    /// Whether the page animates.
    public enum Motion: String, Sendable, CaseIterable {
        /// Animates unless the system asks for reduced motion.
        case auto
        /// Never animates: no scaling or sliding, a static indicator, an instant exit.
        case reduce
    }

    /// The loading indicator shown once the launch is `slow`.
    public enum Indicator: String, Sendable, CaseIterable {
        /// Three dots pulsing once a second.
        case dots
        /// A ring turning once a second.
        case spinner
    }

    /// The app's URL for each screen a launch can end on.
    public struct Destinations: Sendable, Equatable {
        public var home: String?
        public var onboarding: String?
        public var login: String?

        public init(home: String? = nil, onboarding: String? = nil, login: String? = nil) {
            self.home = home
            self.onboarding = onboarding
            self.login = login
        }

    }

    /// How the app comes in over the splash, per destination (design §10, "Transitions").
    public enum Entry: String, Sendable, CaseIterable {
        /// The app fades in while the splash fades out (300 ms).
        case crossfade
        /// The app slides in from the right over the splash (300 ms).
        case slide
        /// The splash fades out over the app, which is there from the start (300 ms).
        case fade
        /// An instant cut.
        case none
    }

    /// How the splash leaves when an app is beneath it.
    public enum Exit: String, Sendable, CaseIterable {
        /// The app enters by its destination (`Entry`) as the splash goes.
        case fade
        /// The app shows through a hole in the splash shaped like the logo, which turns toward the
        /// top-left corner and grows until it covers the screen (600 ms), while the app settles
        /// from 1.05× to its size. Needs a `logo`.
        case reveal
    }

    /// The exit, and the entry for each destination screen; `[transitions]` in `theme.toml`
    /// overrides each.
    public struct Transitions: Sendable, Equatable {
        public var exit: Exit = .fade
        public var home: Entry = .crossfade
        public var onboarding: Entry = .slide
        public var login: Entry = .fade

        public init(exit: Exit = .fade, home: Entry = .crossfade, onboarding: Entry = .slide, login: Entry = .fade) {
            self.exit = exit
            self.home = home
            self.onboarding = onboarding
            self.login = login
        }
    }

    /// The app's name, under the logo.
    public var name: String
    /// The one tagline under the name, or nil for none (or for `taglines`).
    public var tagline: String?
    /// Taglines one of which the page shows per launch, chosen by the launch's id (so the same
    /// one across a reload of the page or a restart of the bridge); empty for `tagline`.
    public var taglines: [String] = []
    /// How the app enters, by destination.
    public var transitions = Transitions()
    /// The error view's words for a code of phase `error`, in place of the state's `message`
    /// (title) and the page's own detail line.
    public struct ErrorText: Sendable, Equatable {
        public var title: String?
        public var detail: String?

        public init(title: String? = nil, detail: String? = nil) {
            self.title = title
            self.detail = detail
        }
    }
    /// The codes of phase `error` a theme may give words to.
    public static let errorCodes = ["network", "timeout", "step-failed", "step-skipped"]
    /// `[errors.CODE]` of `theme.toml`, by code.
    public var errorTexts: [String: ErrorText] = [:]
    /// The words of the update and shutdown views (`[update]`, `[shutdown]` of `theme.toml`).
    public struct ModeTexts: Sendable, Equatable {
        /// `[update] title`: over the bar while an update installs.
        public var updating = "Installing update"
        /// `[update] warning`: under it.
        public var warning = "Do not turn off the device"
        /// `[update] succeeded`: once installed.
        public var succeeded = "Restarting…"
        /// `[update] failed`: over the updater's error.
        public var failed = "Update failed"
        /// `[shutdown] poweroff` and `reboot`.
        public var poweroff = "Shutting down"
        public var reboot = "Restarting"

        public init() {}
    }
    public var modeTexts = ModeTexts()
    /// A file name in the theme's directory (no path), or nil for no logo image. With
    /// `firmwareLogo`, the one drawn where the firmware publishes no logo (`logo_fallback`).
    public var logo: String?
    /// `logo = "firmware"`: the firmware's own logo (ACPI BGRT, `FirmwareLogo`) at the firmware's
    /// place and scale, so power-on, splash and app are one picture (design §16).
    public var firmwareLogo = false
    /// A CSS font family name (e.g. `Inter`), tried before the system's UI font.
    public var font: String?
    /// A font file beside `theme.toml` that provides `font` (else it must be installed).
    public var fontFile: String?
    public var appearance: Appearance
    public var motion: Motion
    public var indicator: Indicator
    /// Show a progress bar under the indicator (from `progress`).
    public var showProgress: Bool
    /// Show the running step's label (the state's `message`) under the indicator.
    public var showStep: Bool
    /// A `signal` step the page completes once the app has painted beneath the splash.
    public var appStep: String?
    /// How far the native renderer turns the picture, clockwise (0, 90, 180 or 270), on every
    /// output whatever its panel orientation says; nil: as the panel says. The page ignores it
    /// (a browser's output is turned by its compositor).
    public var rotate: Int?
    public var light: Palette
    public var dark: Palette
    public var destinations: Destinations

    public init(
        name: String, tagline: String? = nil, logo: String? = nil, font: String? = nil,
        appearance: Appearance = .auto, motion: Motion = .auto, indicator: Indicator = .dots,
        showProgress: Bool = false, showStep: Bool = false, appStep: String? = nil,
        light: Palette = Theme.neutralLight, dark: Palette = Theme.neutralDark,
        destinations: Destinations = Destinations()
    ) {
        self.name = name
        self.tagline = tagline
        self.logo = logo
        self.font = font
        self.appearance = appearance
        self.motion = motion
        self.indicator = indicator
        self.showProgress = showProgress
        self.showStep = showStep
        self.appStep = appStep
        self.light = light
        self.dark = dark
        self.destinations = destinations
    }

    /// The default theme's light colors: near-white, dark grey text.
    /// The error view's red in the designs (#EA5455), in both appearances.
    public static let errorRed: ThemeColor = "#EA5455"

    public static let neutralLight = Palette(
        background: "#F5F5F5", foreground: "#202020", secondary: "#606060", logoBackground: "transparent",
        indicator: "#606060"
    )
    /// The default theme's dark colors.
    public static let neutralDark = Palette(
        background: "#121212", foreground: "#E8E8E8", secondary: "#A0A0A0", logoBackground: "transparent",
        indicator: "#A0A0A0"
    )
}
