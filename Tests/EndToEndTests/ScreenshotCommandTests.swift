import Foundation
import Testing
import TestSupport

/// `splashctl screenshot` (design §15) where there is nothing to read: each refusal says why. What it
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

    /// splashctl alone (the splashd package without splashd-kms, and no splashd-web running): 69,
    /// and what is missing; with --web, the URL file named, or what it holds refused.
    @Test func withoutARendererItSaysWhatIsMissing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try FileManager.default.copyItem(atPath: "\(Binaries.directory)/splashctl", toPath: dir.file("splashctl"))
        let alone = try ProcessRunner.run(dir.file("splashctl"), ["screenshot", dir.file("shot.png"), "--url-file", dir.file("url")],
                                          environment: ["PATH": dir.path])
        #expect(alone.status == 69)
        #expect(alone.stderr == "splashctl screenshot: neither splashd-kms (package splashd-kms) nor splashd-web's \(dir.file("url")) is here: nothing to read the screen from\n", "\(alone.stderr)")
        let web = try ProcessRunner.run(dir.file("splashctl"), ["screenshot", dir.file("shot.png"), "--web", "--url-file", dir.file("url")])
        #expect(web.status == 69)
        #expect(web.stderr.contains("cannot read splashd-web's URL file \(dir.file("url")): No such file or directory"), "\(web.stderr)")
        _ = try dir.write("url", "file:///etc/passwd?token=1\n")
        let bad = try ProcessRunner.run(dir.file("splashctl"), ["screenshot", dir.file("shot.png"), "--web", "--url-file", dir.file("url")])
        #expect(bad.status == 69)
        #expect(bad.stderr.contains("does not hold splashd-web's URL with its token"), "\(bad.stderr)")
        let mixed = try ProcessRunner.run(dir.file("splashctl"), ["screenshot", dir.file("shot.png"), "--web", "--output", "HDMI-A-1"])
        #expect(mixed.status == 64, "\(mixed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("shot.png")), "nothing written")
    }
}
