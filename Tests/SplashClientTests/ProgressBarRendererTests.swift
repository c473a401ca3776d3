import SplashClient
import SplashCore
import SplashProtocol
import Testing

@Suite struct ProgressBarRendererTests {
    @Test func drawsTheBarTheEtaAndTheRunningSteps() {
        let state = StateMessage(
            seq: 3, launch: "L", phase: .loading, slow: true, progress: 0.5, message: nil, elapsedMs: 1200, etaMs: 1300,
            steps: [
                .init(id: "auth", status: .running, attempt: 2, durationMs: 900, label: "Signing in"),
                .init(id: "cfg", status: .running, attempt: 1, durationMs: 900),
                .init(id: "done", status: .succeeded, attempt: 1, durationMs: 100),
            ],
            error: nil, destination: nil
        )
        let lines = ProgressBarRenderer.lines(state, width: 10)
        #expect(lines == ["[█████░░░░░]  50%  loading  eta 1.3s  1.2s", "  Signing in (attempt 2) · cfg"])
    }

    @Test func errorAndFinished() {
        let error = StateMessage(
            seq: 3, launch: "L", phase: .error, slow: true, progress: 0.2, message: "Unable to connect", elapsedMs: 10, steps: [],
            error: ErrorInfo(code: .network, message: "Unable to connect", step: "auth", actions: [.retry, .continueOffline]),
            destination: nil
        )
        #expect(ProgressBarRenderer.lines(error, width: 10)[1] == "  Unable to connect  [retry, continue-offline]")
        let finished = StateMessage(
            seq: 4, launch: "L", phase: .finished, slow: false, progress: 1, message: nil, elapsedMs: 10, steps: [],
            error: nil, destination: Destination(screen: .home, route: "orders/1")
        )
        #expect(ProgressBarRenderer.lines(finished, width: 4) == ["[████] 100%  finished  10ms", "  -> home orders/1"])
    }

    @Test func rewindMovesUpAndClears() {
        #expect(ProgressBarRenderer.rewind(lineCount: 0) == "")
        #expect(ProgressBarRenderer.rewind(lineCount: 2) == "\u{1B}[1A\u{1B}[1A\r\u{1B}[J")
    }
}
