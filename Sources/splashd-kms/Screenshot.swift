import Glibc
import SplashCommandLine
import SplashDraw
import SplashKMS
import SplashSupport
import SplashScene

extension SplashdKMSCommand {
    /// `splashd-kms screenshot FILE.png [--output NAME]`: what the display's outputs scan out now,
    /// as PNG files (`splashctl screenshot` runs it).
    struct Screenshot {
        static let spec = CommandSpec(
            name: "screenshot", abstract: "Write a PNG of what each output of the display shows now, the splash's frame or the app's.",
            discussion: """
                It reads the framebuffer each output scans out, whichever program drew it, so it needs root \
                (the kernel hands a framebuffer's buffer only to its DRM master or to CAP_SYS_ADMIN). It reads \
                linear XR24, AR24, XB24, AB24 and RG16 buffers up to \(ScreenReader.largestSide) pixels a side \
                and \(ScreenReader.largestBuffer >> 20) MiB; anything else is refused by name. One output's \
                picture goes to FILE; with several, each to FILE with -NAME before .png (shot-HDMI-A-1.png). \
                One screenshot of a device at a time. Each file written is printed with its output, size and \
                format. Exit status: 0 written; 1 nothing could be read or written (the reason on stderr); \
                75 another screenshot of the device is being taken.
                """,
            options: [
                OptionSpec("output", help: "Only this output (a name such as HDMI-A-1 or Virtual-2)."),
                OptionSpec("device", help: "The DRM device.", defaultValue: Run.defaultDevice, completion: .file),
            ],
            positionals: [PositionalSpec("file.png", help: "The PNG file.", completion: .file)])

        var file: String
        var output: String?
        var device: String

        init(_ parsed: ParsedCommand) {
            file = parsed.positionals.first ?? ""
            output = parsed.string("output")
            device = parsed.string("device") ?? Run.defaultDevice
        }

        func run() throws {
            let card: DRMDevice
            do {
                card = try DRMDevice(path: device)
            } catch {
                StandardStreams.printError("splashd-kms screenshot: \(error)")
                throw ExitCode(1)
            }
            // One at a time: a lock on the device node itself, which every screenshot opens.
            guard flock(card.fd, LOCK_EX | LOCK_NB) == 0 else {
                StandardStreams.printError("splashd-kms screenshot: another screenshot of \(device) is being taken")
                throw ExitCode(75)
            }
            do {
                let captures = try ScreenReader.capture(card, output: output)
                for capture in captures {
                    let path = captures.count == 1 ? file : Self.path(file, output: capture.output)
                    let image = SplashImage(width: capture.width, height: capture.height)
                    image.replacePixels(with: capture.pixels[...])
                    try AtomicFile.write(image.opaquePNG(), to: path)
                    StandardStreams.write("\(path): \(capture.output), \(capture.width)x\(capture.height), \(ScreenFormat.name(of: capture.format.rawValue))\n", to: 1)
                }
            } catch {
                StandardStreams.printError("splashd-kms screenshot: \(error)")
                throw ExitCode(1)
            }
        }

        /// `file` for one output of several: `shot.png` → `shot-HDMI-A-1.png`.
        static func path(_ file: String, output: String) -> String {
            file.hasSuffix(".png") ? "\(file.dropLast(4))-\(output).png" : "\(file)-\(output)"
        }
    }
}
