@testable import SplashDaemon
import Testing

@Suite struct MemoryReleaseTests {
    @Test func onlyPrivateFileBackedMappingsAreReleased() {
        let maps = """
            55d0c0a00000-55d0c0b00000 r--p 00000000 fe:00 131 /usr/bin/splashd
            55d0c0b00000-55d0c0c00000 r-xp 00100000 fe:00 131 /usr/bin/splashd
            55d0c1000000-55d0c1100000 rw-p 00000000 00:00 0                          [heap]
            7f0000000000-7f0000021000 rw-p 00000000 00:00 0
            7f0000100000-7f0000200000 rw-s 00000000 00:01 77 /memfd:journal (deleted)
            7f0000300000-7f0000400000 r--s 00000000 fe:00 88 /var/lib/shared.db
            7f0000500000-7f0000600000 r-xp 00000000 fe:00 99 /opt/swift/usr/lib/swift/linux/libswiftCore.so
            7f0000700000-7f0000701000 r--p 00000000 fe:00 100 /path with spaces/lib.so
            7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
            7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0                          [vdso]
            garbage line
            """
        #expect(MemoryRelease.fileBackedRegions(maps: maps) == [
            .init(start: 0x55d0_c0a0_0000, end: 0x55d0_c0b0_0000),
            .init(start: 0x55d0_c0b0_0000, end: 0x55d0_c0c0_0000),
            .init(start: 0x7f00_0050_0000, end: 0x7f00_0060_0000),
            .init(start: 0x7f00_0070_0000, end: 0x7f00_0070_1000),
        ])
    }

    /// On this process: the kernel takes every advice (Linux 5.4 or later) and resident memory
    /// does not grow from it.
    @Test func releasingThisProcessIsAcceptedAndShrinksIt() throws {
        let outcome = MemoryRelease.releaseIdleMemory()
        #expect(outcome.regions > 0)
        #expect(outcome.refused == 0)
        let before = try #require(outcome.residentBefore)
        let after = try #require(outcome.residentAfter)
        #expect(after < before, "resident \(before) kB -> \(after) kB")
    }
}
