import CLinuxShims
#if canImport(Glibc)
import Glibc
#endif

/// Gives memory back to the system: the daemon once a launch has finished, the native renderer
/// once its splash stands still (docs/benchmarks.md).
///
/// Almost all of an idle daemon's resident memory is clean, file-backed pages of code and
/// read-only data — its own binary, the Swift runtime, NIO — touched while it started and ran the
/// launch, and not needed again until the next one (measured: 22 MB of 24 MB). At `finished` the
/// app is starting and wants the memory most, so the daemon asks the kernel to reclaim those pages
/// now (`MADV_PAGEOUT` over its file mappings; pages another process maps too, such as libc's,
/// are left alone by the kernel) and returns free heap to the system (`malloc_trim`). Nothing is
/// lost: a page needed later is read back in on first touch, which is what the kernel would do
/// anyway after reclaiming them under memory pressure, only later and blindly. Anonymous memory
/// (the heap, stacks, dirty data) stays; there is no swap to push it to. The renderer does the
/// same with the pages its start touched (argument parsing, the theme, fontconfig's set-up, the
/// first layouts), its shared mappings too (fontconfig's caches).
public enum MemoryRelease {
    /// What one release did.
    public struct Outcome: Sendable, Equatable {
        /// `VmRSS` before and after, in kB (nil when `/proc/self/status` is unreadable).
        public var residentBefore: Int?
        public var residentAfter: Int?
        /// How many mappings were advised, and how many the kernel refused (e.g. before Linux 5.4).
        public var regions: Int
        public var refused: Int
    }

    /// One mapping of `/proc/self/maps` worth releasing: backed by a file on disk.
    public struct Region: Equatable, Sendable {
        public var start: UInt
        public var end: UInt
    }

    /// Releases what can be released now; see the type's description.
    /// `sharedToo`: shared file mappings as well as private ones (the renderer's, whose shared
    /// ones are read-only: fontconfig's caches); the daemon leaves them (writing back a written
    /// one would be I/O).
    @discardableResult
    public static func releaseIdleMemory(sharedToo: Bool = false) -> Outcome {
        let before = residentKilobytes()
        _ = splashd_malloc_trim()
        let regions = fileBackedRegions(maps: readProcFile("/proc/self/maps") ?? "", sharedToo: sharedToo)
        var refused = 0
        for region in regions {
            let address = UnsafeMutableRawPointer(bitPattern: region.start)
            if splashd_madvise_pageout(address, Int(region.end - region.start)) != 0 { refused += 1 }
        }
        return Outcome(residentBefore: before, residentAfter: residentKilobytes(), regions: regions.count, refused: refused)
    }

    /// The file-backed mappings in the text of `/proc/self/maps` (private ones only, unless
    /// `sharedToo`). Anonymous or special ones (`[heap]`, `[stack]`, `[vdso]`) are left out, and
    /// so are devices (a renderer's DRM buffers under /dev) and memfd or deleted files (the theme's
    /// font, registered from memory), which have no disk to come back from.
    public static func fileBackedRegions(maps: String, sharedToo: Bool = false) -> [Region] {
        var regions: [Region] = []
        for line in maps.split(separator: "\n") {
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].count == 4, sharedToo || fields[1].last == "p" else { continue }
            let path = fields[5].drop { $0 == " " }
            guard path.first == "/", !path.hasPrefix("/dev/"), !path.hasPrefix("/memfd:"), !path.hasSuffix("(deleted)") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else {
                continue
            }
            regions.append(Region(start: start, end: end))
        }
        return regions
    }

    /// `VmRSS` of this process in kB.
    public static func residentKilobytes() -> Int? {
        guard let status = readProcFile("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }

    /// A /proc file as text (they report a size of 0, so it is read to its end).
    static func readProcFile(_ path: String) -> String? {
        AtomicFile.read(path).map { String(decoding: $0, as: UTF8.self) }
    }
}
