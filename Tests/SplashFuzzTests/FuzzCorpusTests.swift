import Foundation
import SplashFuzz
import Testing

/// The committed seed corpus and every input a fuzz run ever found (`Fuzz/regressions/`), replayed
/// through the fuzz targets in the ordinary suite: a finding, once fixed, stays fixed without
/// libFuzzer. A target that traps on an input crashes this test.
@Suite struct FuzzCorpusTests {
    /// `Fuzz/` in the repository.
    static let fuzzDirectory = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fuzz")

    static func inputs(of target: FuzzTarget, in folder: String) throws -> [URL] {
        let directory = fuzzDirectory.appending(path: folder).appending(path: target.rawValue)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.allCases)
    func seedsAndRegressionsPass(_ target: FuzzTarget) throws {
        let seeds = try Self.inputs(of: target, in: "corpus")
        #expect(seeds.count >= 3, "\(target.rawValue) has \(seeds.count) seeds in Fuzz/corpus")
        for input in try seeds + Self.inputs(of: target, in: "regressions") {
            target.run(Array(try Data(contentsOf: input)))
        }
    }
}
