#if canImport(Glibc)
import Glibc
#endif

@testable import SplashJSON
import Testing

@Suite struct UTCTimestampTests {
    @Test(arguments: [
        (Int64(0), 0, "1970-01-01T00:00:00.000Z") as (Int64, Int, String),
        (Int64(951_782_400), 5, "2000-02-29T00:00:00.005Z"),
        (Int64(1_795_350_215), 488, "2026-11-22T12:23:35.488Z"),
        (Int64(4_107_542_399), 999, "2100-02-28T23:59:59.999Z"),
        (Int64(-1), 0, "1969-12-31T23:59:59.000Z"),
        (Int64(-86_400 * 365), 10, "1969-01-01T00:00:00.010Z"),
    ])
    func knownInstants(seconds: Int64, milliseconds: Int, expected: String) {
        #expect(UTCTimestamp.iso8601(seconds: seconds, milliseconds: milliseconds) == expected)
    }

    /// Agrees with the C library's gmtime_r across a wide range of instants.
    @Test func agreesWithGmtime() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let seconds = Int64.random(in: -2_000_000_000...8_000_000_000, using: &generator)
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = String(
                format4: Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)
            )
            #expect(UTCTimestamp.iso8601(seconds: seconds, milliseconds: 7) == expected, "\(seconds)")
        }
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

private extension String {
    init(format4 year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) {
        self = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).007Z"
    }
}
