import Foundation
import Testing
import TestSupport

/// Every configuration shipped in examples/ is valid.
@Suite struct ExamplesTests {
    @Test(arguments: ["splashd.toml", "demo.toml"])
    func exampleConfigPassesCheck(name: String) throws {
        let path = "\(Binaries.packageRoot)/examples/\(name)"
        let result = try ProcessRunner.run(
            Binaries.splashd, ["check", "--config", path, "--plugin-dir", "\(Binaries.packageRoot)/plugins"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("OK"))
    }
}
