import SplashCore
import SplashJSON
import SplashProtocol

/// Sample states for rendering and protocol tests.
enum Fixtures {
    static let launch = "6f1c0d2e"

    static func loading(seq: UInt64 = 17, progress: Double = 0.42, id: JSONValue? = nil) -> StateMessage {
        StateMessage(
            id: id, seq: seq, launch: launch, phase: .loading, slow: true, progress: progress, message: "Signing in",
            elapsedMs: 1234,
            steps: [
                .init(id: "config-fetch", status: .succeeded, attempt: 1, durationMs: 1400, label: "Loading settings"),
                .init(id: "auth-refresh", status: .running, attempt: 1, durationMs: 812, label: "Signing in"),
                .init(id: "prefetch", status: .pending, attempt: 0, durationMs: 0, critical: false),
            ],
            error: nil, destination: nil
        )
    }

    static func error(seq: UInt64 = 18) -> StateMessage {
        StateMessage(
            seq: seq, launch: launch, phase: .error, slow: true, progress: 0.3, message: "Unable to connect",
            elapsedMs: 12_000,
            steps: [
                .init(id: "config-fetch", status: .succeeded, attempt: 1, durationMs: 1400, label: "Loading settings"),
                .init(
                    id: "auth-refresh", status: .failed, attempt: 3, durationMs: 9050, label: "Signing in",
                    reason: "Unable to connect: connection refused"),
                .init(id: "prefetch", status: .skipped, attempt: 0, durationMs: 0, critical: false, reason: "auth-refresh failed"),
            ],
            error: ErrorInfo(
                code: .network, message: "Unable to connect", step: "auth-refresh", actions: [.retry, .continueOffline],
                detail: "connection refused"),
            destination: nil
        )
    }

    static func dismissing(seq: UInt64 = 19) -> StateMessage {
        StateMessage(
            seq: seq, launch: launch, phase: .dismissing, slow: false, progress: 1, message: nil, elapsedMs: 2500,
            steps: [.init(id: "config-fetch", status: .succeeded, attempt: 1, durationMs: 1400, label: "Loading settings")],
            error: nil, destination: nil
        )
    }

    static func finished(seq: UInt64 = 20) -> StateMessage {
        StateMessage(
            seq: seq, launch: launch, phase: .finished, slow: false, progress: 1, message: nil, elapsedMs: 2900,
            steps: [
                .init(id: "config-fetch", status: .succeeded, attempt: 1, durationMs: 1400, label: "Loading settings"),
                .init(id: "auth-refresh", status: .succeeded, attempt: 2, durationMs: 61_000, label: "Signing in"),
            ],
            error: nil,
            destination: Destination(screen: .home, route: "orders/42", sheet: nil, reviewPrompt: true)
        )
    }
}
