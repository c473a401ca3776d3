import Foundation
import Testing
import TestSupport

/// Every configuration shipped in examples/ is valid.
@MainActor @Suite struct ExamplesTests {
    /// `check` asks the system whether `control_group` exists, and the examples name the group the
    /// packaging creates (`splash`, systemd/sysusers.d). So each is checked as it is, where its
    /// only possible problem is that group, and as on a system that has the group: with it
    /// swapped for `root`, which every system has.
    @Test(arguments: ["splashd.toml", "demo.toml"])
    func exampleConfigPassesCheck(name: String) throws {
        let path = "\(Binaries.packageRoot)/examples/\(name)"
        let plugins = "\(Binaries.packageRoot)/plugins"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let asIs = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path, "--plugin-dir", plugins])
        if asIs.status != 0 {
            let problems = asIs.stderr.split(separator: "\n").filter { $0.hasPrefix("splashd: ") }
            #expect(problems.count == 1 && problems[0].hasSuffix(": control_group \"splash\" does not exist"), "\(asIs.stderr)")
        }

        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let copy = try dir.write(name, text.replacingOccurrences(of: "control_group = \"splash\"", with: "control_group = \"root\""))
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", copy, "--plugin-dir", plugins])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("OK"))
    }
}
