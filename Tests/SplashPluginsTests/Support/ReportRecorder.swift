import SplashPlugins
import Synchronization

/// Collects the `StepReport`s an attempt sends.
final class ReportRecorder: Sendable {
    private let storage = Mutex<[StepReport]>([])

    /// Everything reported so far, in order.
    var reports: [StepReport] { storage.withLock { $0 } }

    /// The messages reported so far.
    var messages: [String] {
        reports.compactMap { if case .message(let text) = $0 { text } else { nil } }
    }

    /// The closure to put into a `StepContext`.
    var report: @Sendable (StepReport) -> Void {
        { [self] report in storage.withLock { $0.append(report) } }
    }
}
