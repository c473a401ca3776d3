import SplashProtocol

extension ErrorInfo {
    /// The message renderers show for a failure code.
    static func userMessage(for failure: StepFailure, label: String) -> String {
        userMessage(for: failure.code) ?? "\(label) failed"
    }
}
