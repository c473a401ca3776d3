import ArgumentParser
import Glibc
import SplashSupport

/// `splashctl screenshot FILE.png [--output NAME]`: what the display shows now, as PNG files. On
/// a native display it is `splashd-kms screenshot` (the package splashd-kms), which this command
/// becomes: that binary links the display's libraries, this one does not.
struct Screenshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a PNG of what each output of the display shows now (root; needs splashd-kms).",
        discussion: """
            It runs splashd-kms screenshot (beside this binary, else on PATH), which reads the framebuffer \
            each output scans out, the splash's frame or the app's: linear XR24, AR24, XB24, AB24 and RG16 \
            buffers, bounded in size, one screenshot at a time. One output's picture goes to FILE; with \
            several, each to FILE with -NAME before .png. Exit status: 0 written; 1 nothing could be read \
            or written; 69 splashd-kms is not installed; 75 another screenshot is being taken. \
            See splashd-kms(1).
            """
    )
    @Argument(help: ArgumentHelp("The PNG file.", valueName: "file.png")) var file: String
    @Option(help: "Only this output (a name such as HDMI-A-1 or Virtual-2).") var output: String?
    @Option(help: "The DRM device (default: splashd-kms's, /dev/dri/card0).") var device: String?

    func run() throws {
        guard let renderer = Self.nativeRenderer() else {
            StandardStreams.printError("splashctl screenshot: splashd-kms is not installed (package splashd-kms); it reads what a native display shows")
            throw ExitCode(69)
        }
        var arguments = ["splashd-kms", "screenshot", file]
        if let output { arguments += ["--output", output] }
        if let device { arguments += ["--device", device] }
        let argv = arguments.map { strdup($0) } + [nil]
        execv(renderer, argv)
        StandardStreams.printError("splashctl screenshot: cannot run \(renderer): \(String(cString: strerror(errno)))")
        throw ExitCode(69)
    }

    /// splashd-kms beside this binary (as the package and `make install` lay them out, and the
    /// build directory), else the first on PATH.
    static func nativeRenderer() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        var candidates: [String] = []
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            let exe = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            candidates.append(String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)]) + "/splashd-kms")
        }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        candidates += path.split(separator: ":").map { "\($0)/splashd-kms" }
        return candidates.first { access($0, X_OK) == 0 }
    }
}
