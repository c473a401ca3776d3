/// What `splashd-kms-first-frame` (helpers/, C on the C library alone) needs to show the cache's
/// pictures before the renderer starts: which output shows which file, for which arguments, and
/// the theme's files as they were. Pure: the text of the index and of the hand-over; the renderer
/// writes the file (`first-frames` in the cache directory) once the splash stands still, and the
/// helper reads it (docs/renderer-kms.md, "From power-on").
///
///     splashd-kms first frames 1
///     arguments<TAB>HEX           FNV-1a of the renderer's arguments, each one's bytes then a NUL
///     output<TAB>NAME<TAB>WIDTH<TAB>HEIGHT<TAB>FILE
///     file<TAB>SIZE<TAB>MTIME-NS<TAB>PATH    a theme file, as it was
///     absent<TAB>PATH                         a file whose coming changes the theme
///
/// Every line ends in a newline; a file cut short is no index. The helper checks the arguments,
/// the files, and that each output is connected and scans out its size; the renderer still
/// checks each picture against the theme's fingerprint, and redraws what is stale.
public enum FirstFrameIndex {
    /// The index's name in the cache directory.
    public static let fileName = "first-frames"
    static let magic = "splashd-kms first frames 1"

    /// The environment variable through which the helper hands the device over:
    /// `"FD FB,FB…"`, the open device's descriptor and the framebuffers on screen.
    public static let handOverVariable = "SPLASHD_KMS_FIRST_FRAMES"

    /// One output's picture.
    public struct Output: Sendable, Equatable {
        public var name: String
        public var width: Int
        public var height: Int
        /// The picture's name in the cache directory.
        public var file: String
    }

    /// A theme file as the renderer read it (`init(stating:)`).
    public struct Source: Sendable, Equatable {
        public var path: String
        public var size: UInt64
        /// Its modification time in nanoseconds since the epoch.
        public var modified: UInt64

        public init(path: String, size: UInt64, modified: UInt64) {
            self.path = path
            self.size = size
            self.modified = modified
        }
    }

    /// The hash of the renderer's arguments (without the program's name) the index is for: the
    /// cache's FNV-1a over each argument's UTF-8 bytes followed by a NUL.
    public static func argumentsHash(_ arguments: [String]) -> UInt64 {
        var bytes: [UInt8] = []
        for argument in arguments { bytes += Array(argument.utf8) + [0] }
        return FirstFrameCache.fnv(bytes, FirstFrameCache.fnvOffset)
    }

    /// The longest output name and picture file name the helper takes, in bytes (its fields hold
    /// 64 and 128 with the NUL); it refuses a longer one rather than read it cut short.
    static let maximumNameBytes = 63
    static let maximumFileBytes = 127
    /// The largest width or height the helper takes.
    static let maximumSide = 8192

    /// The index's text, or nil when the helper could not read it back (the cache then only
    /// serves the renderer): a name or path that holds a tab or a line break, an output name or a
    /// file name longer than the helper's fields, a size outside 1…8192.
    public static func encode(arguments: UInt64, outputs: [Output], files: [Source], absent: [String]) -> String? {
        let texts = outputs.flatMap { [$0.name, $0.file] } + files.map(\.path) + absent
        guard !outputs.isEmpty, !texts.contains(where: { $0.contains(where: { $0 == "\t" || $0.isNewline }) }),
              !outputs.contains(where: { $0.file.isEmpty || $0.file.contains("/") }),
              !outputs.contains(where: { $0.name.utf8.count > maximumNameBytes || $0.file.utf8.count > maximumFileBytes }),
              !outputs.contains(where: { !(1...maximumSide).contains($0.width) || !(1...maximumSide).contains($0.height) })
        else { return nil }
        var lines = [magic, "arguments\t\(String(arguments, radix: 16))"]
        lines += outputs.map { "output\t\($0.name)\t\($0.width)\t\($0.height)\t\($0.file)" }
        lines += files.map { "file\t\($0.size)\t\($0.modified)\t\($0.path)" }
        lines += absent.map { "absent\t\($0)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The helper's hand-over, read from `value`: the device's descriptor and the framebuffers it
    /// put on screen; nil when it is not one.
    public static func handOver(_ value: String) -> (descriptor: Int32, framebuffers: [UInt32])? {
        let parts = value.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, let descriptor = Int32(parts[0]), descriptor > 2 else { return nil }
        let framebuffers = parts[1].split(separator: ",", omittingEmptySubsequences: false).map { UInt32($0) }
        guard !framebuffers.isEmpty, !framebuffers.contains(where: { $0 == nil || $0 == 0 }) else { return nil }
        return (descriptor, framebuffers.compactMap { $0 })
    }
}

extension FirstFrameIndex.Output {
    /// The output `name`, showing the cache's picture for `key`: its size and file are the key's,
    /// so the index cannot name a picture of another size.
    public init(name: String, key: FirstFrameCache.Key) {
        self.init(name: name, width: key.width, height: key.height, file: key.fileName)
    }
}
