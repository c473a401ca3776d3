import SplashSupport

/// What `splashd-web check` and `splashd-kms check` share: the theme loaded (every problem with
/// file and line), the renderer's own test of it, the warnings, and the verdict.
public enum ThemeCheck {
    /// Loads the theme in `directory` and runs `renderable` on it (the renderer's own refusals);
    /// prints each warning (`FILE: warning: …`) and then `verdict`, and returns 0; on a problem,
    /// prints it to stderr and returns 78 (EX_CONFIG).
    public static func run(
        directory: String, renderable: (ThemeLoader.Loaded) throws -> Void = { _ in },
        verdict: (ThemeLoader.Loaded) -> String
    ) -> Int32 {
        do {
            let loaded = try ThemeLoader.load(directory: directory)
            try renderable(loaded)
            let themeFile = (directory.hasSuffix("/") ? directory : directory + "/") + ThemeLoader.fileName
            for warning in ThemeLoader.warnings(for: loaded.theme) { StandardStreams.write("\(themeFile): warning: \(warning)\n") }
            print(verdict(loaded))
            return 0
        } catch {
            StandardStreams.write("\(error)\n")
            return 78
        }
    }
}
