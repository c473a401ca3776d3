import Foundation
import Testing
import TestSupport

/// `splashctl screenshot` (SPEC §15) where there is nothing to read: each refusal says why. What it
/// reads from a real display is tested in the VM (Tests/vm/test_kms_screenshot.py).
@MainActor @Suite struct ScreenshotCommandTests {
    @Test func aDeviceThatIsNotThereOrNotADisplayIsNamed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let missing = try ProcessRunner.run("\(Binaries.directory)/splashctl", ["screenshot", dir.file("shot.png"), "--device", dir.file("card9")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "splashd-kms screenshot: cannot open \(dir.file("card9")): No such file or directory\n", "\(missing.stderr)")
        let notDisplay = try ProcessRunner.run("\(Binaries.directory)/splashd-kms", ["screenshot", dir.file("shot.png"), "--device", "/dev/null"])
        #expect(notDisplay.status == 1)
        #expect(notDisplay.stderr.contains("/dev/null has no dumb buffers (not a mode-setting device)"), "\(notDisplay.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("shot.png")), "nothing written")
    }

    /// splashctl alone (the splashd package without splashd-kms): 69, and what to install.
    @Test func withoutTheNativeRendererItSaysWhatIsMissing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.copyItem(atPath: "\(Binaries.directory)/splashctl", toPath: dir.file("splashctl"))
        let result = try ProcessRunner.run(dir.file("splashctl"), ["screenshot", dir.file("shot.png")], environment: ["PATH": dir.path])
        #expect(result.status == 69)
        #expect(result.stderr.contains("splashd-kms is not installed (package splashd-kms)"), "\(result.stderr)")
    }
}
