import SplashJournalReader
import Testing

/// Table timestamps, like journalctl's short-precise with milliseconds.
@Suite struct LocalTimestampTests {
    @Test func partsAreWrittenLikeJournalctl() {
        #expect(LocalTimestamp.string(month: 3, day: 5, hour: 4, minute: 2, second: 9, millisecond: 7) == "Mar 05 04:02:09.007")
        #expect(LocalTimestamp.string(month: 12, day: 31, hour: 23, minute: 59, second: 60, millisecond: 999)
            == "Dec 31 23:59:60.999")
        #expect(LocalTimestamp.string(month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0) == "Jan 01 00:00:00.000")
    }

    @Test func aMonthOutOfRangeIsMarked() {
        #expect(LocalTimestamp.string(month: 13, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0).hasPrefix("??? "))
    }

    @Test func localTimeHasTheShapeAndKeepsTheMilliseconds() {
        // The time zone is the machine's: only the shape and the milliseconds are known here.
        let text = LocalTimestamp.string(realtimeUsec: 1_772_715_731_151_042)
        #expect(text.count == 19, "\(text)")
        #expect(text.hasSuffix(":11.151"), "\(text)")  // every time zone offset is whole minutes
        // 2026-03-05 13:02 UTC is in March in every time zone.
        #expect(text.hasPrefix("Mar "), "\(text)")
    }
}
