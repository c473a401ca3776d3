import SplashClient
import SplashCore
import SplashProtocol
import Testing

/// The exact text of `splashctl status` and `splashctl watch`.
@Suite struct StatusRendererTests {
    @Test func loadingTable() {
        #expect(StatusRenderer.table(Fixtures.loading()) == """
            phase: loading  progress: 42%  slow: yes  elapsed: 1.2s  launch: 6f1c0d2e
            message: Signing in

            ID            STATUS     ATTEMPT  DURATION  LABEL
            config-fetch  succeeded  1        1.4s      Loading settings
            auth-refresh  running    1        812ms     Signing in
            prefetch      pending    0        0ms       -

            """)
    }

    @Test func errorTableShowsReasonsTheErrorAndItsActions() {
        #expect(StatusRenderer.table(Fixtures.error()) == """
            phase: error  progress: 30%  slow: yes  elapsed: 12s  launch: 6f1c0d2e
            message: Unable to connect

            ID            STATUS     ATTEMPT  DURATION  LABEL             REASON
            config-fetch  succeeded  1        1.4s      Loading settings
            auth-refresh  failed     3        9.1s      Signing in        Unable to connect: connection refused
            prefetch      skipped    0        0ms       -                 auth-refresh failed

            error: network (step auth-refresh): Unable to connect
            detail: connection refused
            actions: retry, continue-offline

            """)
    }

    @Test func finishedTableShowsTheDestination() {
        #expect(StatusRenderer.table(Fixtures.finished()) == """
            phase: finished  progress: 100%  slow: no  elapsed: 2.9s  launch: 6f1c0d2e

            ID            STATUS     ATTEMPT  DURATION  LABEL
            config-fetch  succeeded  1        1.4s      Loading settings
            auth-refresh  succeeded  2        61s       Signing in

            destination: home  route: orders/42  sheet: -  review prompt: yes

            """)
    }

    @Test func softErrorWithoutStepOrActions() {
        var state = Fixtures.error()
        state.error = ErrorInfo(code: .timeout, message: "This is taking longer than expected", step: nil, actions: [])
        #expect(StatusRenderer.table(state).hasSuffix("""

            error: timeout: This is taking longer than expected
            actions: none

            """))
    }

    @Test func watchLines() {
        #expect(StatusRenderer.watchLine(Fixtures.loading())
            == "loading  42%  slow  Signing in  [config-fetch succeeded, auth-refresh running #1]")
        #expect(StatusRenderer.watchLine(Fixtures.error())
            == "error  30%  slow  Unable to connect  [config-fetch succeeded, auth-refresh failed #3, prefetch skipped]  actions: retry, continue-offline")
        #expect(StatusRenderer.watchLine(Fixtures.dismissing()) == "dismissing  100%  [config-fetch succeeded]")
        #expect(StatusRenderer.watchLine(Fixtures.finished())
            == "finished  100%  [config-fetch succeeded, auth-refresh succeeded #2]  -> home orders/42 review-prompt")
    }

    @Test func watchLineOfAFreshLaunchHasNoStepList() {
        var state = Fixtures.loading(progress: 0)
        state.slow = false
        state.message = nil
        state.steps = [.init(id: "a", status: .pending, attempt: 0, durationMs: 0)]
        #expect(StatusRenderer.watchLine(state) == "loading  0%")
    }

    @Test(arguments: [(0.0, "0%"), (0.42, "42%"), (0.3, "30%"), (0.999, "99%"), (1.0, "100%"), (1.5, "100%"), (-1, "0%"), (.nan, "0%")])
    func percentRoundsDown(progress: Double, text: String) {
        #expect(StatusRenderer.percent(progress) == text)
    }

    @Test(arguments: [(Int64(0), "0ms"), (812, "812ms"), (1400, "1.4s"), (2000, "2s"), (120_000, "2m")])
    func durations(ms: Int64, text: String) {
        #expect(StatusRenderer.duration(ms: ms) == text)
    }

    @Test func aModeBesideTheLaunchHasALineOfItsOwn() {
        var state = StateMessage(seq: 1, launch: "L", phase: .loading, slow: false, progress: 0.5, message: nil, elapsedMs: 0, steps: [],
                                 error: nil, destination: nil)
        #expect(StatusRenderer.modeLine(state) == nil)
        state.mode = .update
        state.update = UpdateStatus(source: .psplash, progress: 0.42, message: "step 1 of 1")
        #expect(StatusRenderer.modeLine(state) == "mode: update (psplash) 42%: step 1 of 1")
        #expect(StatusRenderer.table(state).contains("\nmode: update (psplash) 42%: step 1 of 1\n"))
        state.update = UpdateStatus(source: .rauc, progress: 1, result: .succeeded)
        #expect(StatusRenderer.modeLine(state) == "mode: update (rauc) succeeded")
        state.mode = .shutdown
        state.shutdown = .poweroff
        #expect(StatusRenderer.modeLine(state) == "mode: shutdown (poweroff)")
    }
}
