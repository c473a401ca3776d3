import ArgumentParser
import Glibc
import SplashSupport

/// `splashctl screenshot FILE.png [--output NAME]`: what the display shows now, as PNG files. On
/// a native display it is `splashd-kms screenshot` (the package splashd-kms), which this command
/// becomes: that binary links the display's libraries, this one does not.
struct Screenshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a PNG of what the display shows now: each output of a native display (root), or the web page.",
        discussion: """
            On a native display it runs splashd-kms screenshot (beside this binary, else on PATH), which \
            reads the framebuffer each output scans out, the splash's frame or the app's: linear XR24, AR24, \
            XB24, AB24 and RG16 buffers, bounded in size. One output's picture goes to FILE; with several, \
            each to FILE with -NAME before .png. See splashd-kms(1). With --web (the default without \
            splashd-kms), the web renderer's page draws itself into a PNG and sends it through \
            splashd-web, asked with the token of its URL file (root, or a member of splash): the splash as \
            the page shows it, not the app's frame; at most 16 MiB, within 8 s. One screenshot at a time. \
            Exit status: 0 written; 1 nothing could be read or written; 69 nothing to read the screen \
            from (splashd-kms not installed, splashd-web not running); 75 another screenshot is being \
            taken; 77 the URL file may not be read.
            """
    )
    @Argument(help: ArgumentHelp("The PNG file.", valueName: "file.png")) var file: String
    @Option(help: "Only this output (a name such as HDMI-A-1 or Virtual-2).") var output: String?
    @Option(help: "The DRM device (default: splashd-kms's, /dev/dri/card0).") var device: String?
    @Flag(help: "The web renderer's page, through splashd-web (the default when splashd-kms is not installed).") var web = false
    @Option(help: ArgumentHelp("splashd-web's URL file, with its token.", valueName: "path")) var urlFile = "/run/splashd-web/url"

    func validate() throws {
        if web, output != nil || device != nil { throw ValidationError("--output and --device name a native display's; not with --web") }
    }

    func run() throws {
        guard !web, let renderer = Self.nativeRenderer() else {
            guard web || access(urlFile, F_OK) == 0 else {
                StandardStreams.printError("splashctl screenshot: neither splashd-kms (package splashd-kms) nor splashd-web's \(urlFile) is here: nothing to read the screen from")
                throw ExitCode(69)
            }
            do {
                StandardStreams.write(try WebScreenshot.take(urlFile: urlFile, to: file) + "\n", to: 1)
            } catch {
                StandardStreams.printError("splashctl screenshot: \(error.message)")
                throw ExitCode(error.status)
            }
            return
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
