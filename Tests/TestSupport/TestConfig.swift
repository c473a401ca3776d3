/// Configuration text the end-to-end tests share.
public enum TestConfig {
    /// A `[splash]` table with no minimum display and an exit animation of `exitAnimation`: a
    /// launch is dismissed as soon as its steps are done. Lines that follow it (`timeout = "10m"`)
    /// are in the same table; then steps.
    public static func splash(exitAnimation: String = "0ms") -> String {
        "[splash]\nmin_display = \"0ms\"\nexit_animation = \"\(exitAnimation)\"\n"
    }

    /// `splash()`: no exit animation either, so a launch ends as soon as its steps do.
    public static let instantSplash = splash()
}
