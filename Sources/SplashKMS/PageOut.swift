import Glibc

/// Memory given back once the splash stands still: the pages of the program's and its libraries'
/// files that the start touched (argument parsing, the theme's loading, fontconfig's set-up, the
/// first layouts) and a still splash does not, and the heap its drawing grew. Clean file pages
/// are the kernel's to reclaim under pressure anyway; giving them back at once makes the
/// renderer's resident memory what it uses while it waits (docs/benchmarks.md, "From power-on,
/// against Plymouth"). Pages needed again later come back from the page cache or the disk.
public enum PageOut {
    /// The file-backed mappings of `maps` (/proc/self/maps) to page out, as (start, length): every
    /// mapping of a regular file, but not devices (the DRM buffers on screen under /dev) nor
    /// memfd or deleted files (the theme's font, registered from memory), which have no disk to
    /// come back from.
    public static func fileMappings(maps: String) -> [(start: UInt, length: UInt)] {
        var ranges: [(start: UInt, length: UInt)] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let path = fields[5].drop { $0 == " " }
            guard path.hasPrefix("/"), !path.hasPrefix("/dev/"), !path.hasPrefix("/memfd:"), !path.hasSuffix("(deleted)") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start
            else { continue }
            ranges.append((start, end - start))
        }
        return ranges
    }

    /// MADV_PAGEOUT (Linux 5.4).
    public static let madvisePageOut: Int32 = 21
}
