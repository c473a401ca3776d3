import Foundation
import Testing
import TestSupport

/// The end-to-end tests block their thread while they wait for real processes (a daemon's start,
/// a `follow` until a phase, 200 power cuts). Swift Testing runs a synchronous test on the
/// concurrency pool, which has one thread per core: two such tests on a 2-core machine stopped
/// every asynchronous test of the run for as long as they blocked, and those tests' bounded
/// waits ran out (17 failures in one run on a quiet machine). So every end-to-end suite runs on
/// the main actor: one test at a time on the main thread, the pool left to the others. (A test
/// that awaits lets another one have the main thread meanwhile: limits on the daemon's side of
/// such a test must outlast a blocking test.)
@MainActor @Suite struct MainActorSuitesTests {
    @Test func everyEndToEndSuiteRunsOnTheMainActor() throws {
        let root = "\(Binaries.packageRoot)/Tests/EndToEndTests"
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        for file in files {
            let lines = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.hasPrefix("@Suite") || line.hasPrefix("@MainActor @Suite") {
                // A suite whose tests are each on the main actor (the compiler cannot have the
                // whole struct there) counts too.
                let body = lines[index...].prefix(400).joined(separator: "\n")
                let testsOnMainActor = !body.contains("    @Test func") && body.contains("@MainActor @Test")
                #expect(line.hasPrefix("@MainActor") || testsOnMainActor, "\(file):\(index + 1): \(line)")
            }
        }
    }
}
