import Logging
@testable import SplashDaemon
import Testing
import TestSupport

/// `LogLimit` and `FoldedLog` on their own: what resumes, psplash's FIFO and RAUC's steps log
/// (AppLifeTests and PsplashFIFOTrustTests drive them through the real daemon).
@Suite struct LogLimitTests {
    @Test func theFirstFewOfAWindowAreLoggedTheRestToldWithTheNext() {
        var limit = LogLimit(burst: 3, window: .seconds(60))
        let first = (0..<10).map { limit.admit(at: .seconds($0)).logged }
        #expect(first == [true, true, true] + Array(repeating: false, count: 7))
        #expect(limit.suppressed == 7)
        // A window on from the first logged: logged again, with how many were not.
        #expect(limit.admit(at: .seconds(60)) == (true, 7))
        #expect(limit.suppressed == 0)
        #expect(limit.foldedLine(7, "MSG lines") == "7 more MSG lines were not logged (more than 3 within 1m)")
    }

    @Test func takeFoldedTellsTheCountOnce() {
        var limit = LogLimit(burst: 1)
        _ = limit.admit(at: .zero)
        _ = limit.admit(at: .seconds(1))
        _ = limit.admit(at: .seconds(2))
        #expect(limit.takeFolded() == 2)
        #expect(limit.takeFolded() == 0)
        #expect(limit.admit(at: .seconds(61)) == (true, 0))
    }

    @Test func aFoldedLogTellsItsCountAtAFlushAndCountsOnlyLinesItsLevelLetsThrough() {
        let capture = LogCapture()
        var logger = capture.logger()
        logger.logLevel = .info
        let log = FoldedLog(logger: logger, prefix: "source: ", what: "lines", limit: LogLimit(burst: 2))
        for index in 0..<100 { log.log(.debug, "debug \(index)") }
        for index in 0..<100 { log.log(.info, "line \(index)") }
        #expect(capture.records.map(\.message) == ["source: line 0", "source: line 1"], "the debug lines neither logged nor counted")
        log.flush()
        log.flush()
        #expect(capture.records(.notice, containing: "more lines were not logged").map(\.message) == [
            "source: 98 more lines were not logged (more than 2 within 1m)"
        ])
    }
}
