/// Configuration text the end-to-end tests share.
public enum TestConfig {
    /// A `[splash]` table with no minimum display and no exit animation: a launch ends as soon as
    /// its steps do. Lines that follow it (`timeout = "10m"`) are in the same table; then steps.
    public static let instantSplash = """
        [splash]
        min_display = "0ms"
        exit_animation = "0ms"

        """
}
