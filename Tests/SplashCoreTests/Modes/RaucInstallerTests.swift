import SplashCore
import Testing

/// RAUC's installer read into the update view, with the sequences RAUC 1.8 (Debian 12's) sends.
@Suite struct RaucInstallerTests {
    typealias P = RaucInstaller.Properties

    @Test func aSuccessfulInstallMovesTheBarAndEndsSucceeded() {
        var rauc = RaucInstaller()
        var inputs = rauc.changed(P(operation: "installing"))
        inputs += rauc.changed(P(progress: (0, "Installing", 1), lastError: ""))
        inputs += rauc.changed(P(progress: (20, "Determining slot states done.", 2)))
        inputs += rauc.changed(P(progress: (90, "Copying image to rootfs.1", 3)))
        inputs += rauc.changed(P(progress: (100, "Installing done.", 1)))
        inputs += rauc.completed(0)
        inputs += rauc.changed(P(operation: "idle"))
        // Each of RAUC's steps is one input: its percentage and its message go together.
        #expect(inputs == [
            .progress(0), .step(0, message: "Installing"), .step(0.2, message: "Determining slot states done."),
            .step(0.9, message: "Copying image to rootfs.1"), .step(1, message: "Installing done."), .ended(.succeeded, error: nil),
        ])
        #expect(!rauc.installing)
    }

    @Test func aFailedInstallEndsWithRAUCsLastError() {
        var rauc = RaucInstaller()
        _ = rauc.changed(P(operation: "installing", progress: (0, "Installing", 1), lastError: ""))
        _ = rauc.changed(P(progress: (40, "Verifying signature failed.", 3)))
        _ = rauc.changed(P(progress: (100, "Installing failed.", 1)))
        let error = "signature verification failed: Verify error: unable to get local issuer certificate"
        #expect(rauc.changed(P(lastError: error)).isEmpty)
        #expect(rauc.completed(1) == [.ended(.failed, error: error)])
        // The next install forgets the error.
        _ = rauc.changed(P(operation: "installing"))
        #expect(rauc.lastError == nil)
        #expect(rauc.completed(1) == [.ended(.failed, error: "RAUC's installation failed (result 1)")])
    }

    @Test func theProgressAnIdleRAUCKeepsIsNoUpdate() {
        var rauc = RaucInstaller()
        // What GetAll reads after an install long done.
        #expect(rauc.changed(P(operation: "idle", progress: (100, "Installing failed.", 1), lastError: "old")).isEmpty)
        #expect(rauc.changed(P(progress: (120, "x", 1))).isEmpty)
        // Mid-install at the start: the operation and the progress in one reading.
        #expect(rauc.changed(P(operation: "installing", progress: (150, "Copying", 3))) == [.step(1, message: "Copying")])
    }

    /// RAUC killed or restarted mid-install, or an install it aborted: `Operation` goes back to
    /// `idle` with no `Completed`. The view, and the launch held behind it, stayed at 30 % for good.
    @Test func anInstallThatGoesIdleWithoutCompletedEndsFailed() {
        var rauc = RaucInstaller()
        _ = rauc.changed(P(operation: "installing"))
        _ = rauc.changed(P(progress: (30, "Copying image to rootfs.1", 2)))
        #expect(rauc.changed(P(operation: "idle")) == [.ended(.failed, error: RaucInstaller.stopped)])
        #expect(!rauc.installing)
        // With RAUC's own error when it set one, in the same signal or before.
        _ = rauc.changed(P(operation: "installing"))
        #expect(rauc.changed(P(operation: "idle", lastError: "Installation error: aborted")) == [.ended(.failed, error: "Installation error: aborted")])
        // After Completed, idle is RAUC's own end: nothing more.
        _ = rauc.changed(P(operation: "installing"))
        #expect(rauc.completed(0) == [.ended(.succeeded, error: nil)])
        #expect(rauc.changed(P(operation: "idle")).isEmpty)
    }

    @Test func RAUCLeavingTheBusMidInstallEndsItFailed() {
        var rauc = RaucInstaller()
        #expect(rauc.lost().isEmpty, "no install: nothing to end")
        _ = rauc.changed(P(operation: "installing", progress: (30, "Copying image to rootfs.1", 2)))
        _ = rauc.changed(P(lastError: "Failed to mount bundle"))
        #expect(rauc.lost() == [.ended(.failed, error: "Failed to mount bundle")])
        #expect(rauc.lost().isEmpty, "ended once")
        _ = rauc.changed(P(operation: "installing"))
        #expect(rauc.lost() == [.ended(.failed, error: RaucInstaller.stopped)])
    }
}
