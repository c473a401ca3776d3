@testable import SplashSupport
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

    /// The renderer's choice (`sharedToo`): its shared file mappings too, but not its DRM buffers
    /// under /dev nor its font in memory (memfd), which have no disk to come back from.
    @Test func aStillRendererPagesOutItsFilesButNotItsBuffersNorItsFontInMemory() {
        let maps = """
            55d466b09000-55d466c00000 r--p 00000000 00:1d 1234                       /usr/bin/splashd-kms
            55d466c00000-55d467000000 r-xp 000f7000 00:1d 1234                       /usr/bin/splashd-kms
            55d468000000-55d468100000 rw-p 00000000 00:00 0                          [heap]
            7f0000000000-7f0000400000 rw-s 10000000 00:05 77                         /dev/dri/card0
            7f0000400000-7f0000500000 r--s 00000000 00:01 88                         /memfd:splashd-font (deleted)
            7f0000500000-7f0000600000 r--p 00000000 00:1d 99                         /usr/share/fonts/Inter Bold.otf
            7f0000600000-7f0000700000 r--s 00000000 00:1d 98                         /var/cache/fontconfig/x.cache-8
            7f0000700000-7f0000701000 rw-p 00000000 00:00 0
            7ffe93dd8000-7ffe93df9000 rw-p 00000000 00:00 0                          [stack]
            """
        #expect(MemoryRelease.fileBackedRegions(maps: maps, sharedToo: true) == [
            .init(start: 0x55d4_66b0_9000, end: 0x55d4_66c0_0000),
            .init(start: 0x55d4_66c0_0000, end: 0x55d4_6700_0000),
            .init(start: 0x7f00_0050_0000, end: 0x7f00_0060_0000),
            .init(start: 0x7f00_0060_0000, end: 0x7f00_0070_0000),
        ])
        #expect(MemoryRelease.fileBackedRegions(maps: maps).map(\.start) == [0x55d4_66b0_9000, 0x55d4_66c0_0000, 0x7f00_0050_0000],
                "the daemon's: private ones only")
    }

    /// On this process: the kernel takes the advice (Linux 5.4 or later), and the pages it was
    /// advised about leave memory. What is compared is the resident size of those mappings alone
    /// (`/proc/self/smaps`), not the process's whole `VmRSS`: the other tests running beside this
    /// one allocate and free heap at their own pace, which would make that a race.
    @Test func releasingThisProcessIsAcceptedAndShrinksIt() throws {
        let before = try Self.residentFileBackedKilobytes()
        let outcome = MemoryRelease.releaseIdleMemory()
        let after = try Self.residentFileBackedKilobytes()
        #expect(outcome.regions > 0)
        // The kernel takes the advice (before Linux 5.4 it refuses every one). Not "refuses
        // none": a mapping another test unmaps between the release's reading of the maps and its
        // advice is refused (seen once in five runs of the suite beside a CPU hog).
        #expect(outcome.refused < outcome.regions, "\(outcome.refused) of \(outcome.regions) refused")
        #expect(before > 0 && after < before, "resident in private file mappings: \(before) kB -> \(after) kB")
    }

    /// The resident size (`Rss:`) of this process's private file-backed mappings, in kB.
    static func residentFileBackedKilobytes() throws -> Int {
        // Read as the release reads /proc (Foundation's String(contentsOfFile:) gave an empty
        // smaps under ThreadSanitizer); smaps is about 1 KiB a mapping.
        let bytes = try #require(AtomicFile.read("/proc/self/smaps", limit: 256 << 20))
        let smaps = String(decoding: bytes, as: UTF8.self)
        // smaps's header lines are maps' lines: the same parser picks the mappings.
        let starts = Set(MemoryRelease.fileBackedRegions(maps: smaps).map(\.start))
        var counted = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let start = UInt(line[..<dash], radix: 16) {
                counted = starts.contains(start)
            } else if counted, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
            }
        }
        return total
    }
}
