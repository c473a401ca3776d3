import CLinuxShims
import Glibc
import SplashCommandLine
import SplashDraw
import SplashTheme
import SplashScene

/// The logo drawn by a child process (`splashd-kms render-logo`) under `LogoBudget`: librsvg's
/// cost has no bound of its own and a hostile SVG can abort the process that draws it (a Rust
/// panic in feConvolveMatrix), so the renderer never draws a theme's file itself.
///
/// The child starts when the painter is prepared and runs while the renderer draws: the renderer
/// polls its pidfd in its loop and draws the name and tagline without the logo until it ended
/// (`splashd-kms check` waits for it). The
/// bytes go in and the pixels come out through memfds: no pipe to fill, and a child that dies
/// leaves nothing half-read.
final class IsolatedLogo: LogoSource {
    private let side: Int
    private let path: String
    private var child: pid_t = 0
    private var pidfd: Int32 = -1
    private var output: Int32 = -1
    private var errors: Int32 = -1
    private var started: Result<Void, SplashDrawError> = .success(())
    private let wallDeadline: ContinuousClock.Instant

    init(_ file: ThemeLoader.File, side: Int, path: String) {
        self.side = side
        self.path = path
        wallDeadline = .now + .seconds(LogoBudget.wallSeconds)
        started = start(file)
    }

    deinit {
        if child > 0 {
            kill(child, SIGKILL)
            waitpid(child, nil, 0)
        }
        for fd in [pidfd, output, errors] where fd >= 0 { close(fd) }
    }

    private func start(_ file: ThemeLoader.File) -> Result<Void, SplashDrawError> {
        let type: String
        switch file.contentType {
        case "image/svg+xml": type = "svg"
        case "image/png":
            // The structure and the size first, in this process: nothing is decoded for them.
            do { _ = try PNGHeader(file.bytes, path: path) } catch { return .failure(error) }
            type = "png"
        default:
            return .failure(.badLogo(path: path, reason: "the native renderer draws SVG and PNG logos, not \(file.contentType)"))
        }
        let input = splashd_memfd_create_sealable("splashd-logo-in")
        output = splashd_memfd_create_sealable("splashd-logo-out")
        errors = splashd_memfd_create_sealable("splashd-logo-err")
        defer { if input >= 0 { close(input) } }
        guard input >= 0, output >= 0, errors >= 0 else { return .failure(bad("memfd_create: errno \(errno)")) }
        let written = file.bytes.withUnsafeBytes { pwrite(input, $0.baseAddress, $0.count, 0) }
        guard written == file.bytes.count else { return .failure(bad("writing the logo for its drawing: errno \(errno)")) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        // No signal blocked or ignored (this process may block SIGTERM for its signalfd): SIGXCPU
        // must end the child at its CPU budget.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = ["splashd-kms", "render-logo", "--type", type, "--side", String(side)]
        // One malloc arena: the child's address space is its budget. Swift's hashing with a fixed
        // seed: a random one is a blocking getrandom, which early in boot waits for the kernel's
        // random numbers (as the renderer's own start did: docs/renderer-kms.md, "Never waiting
        // for random numbers"); the child's keys are its own.
        let environment = ["MALLOC_ARENA_MAX=1", "SWIFT_BACKTRACE=enable=no", "LC_ALL=C.UTF-8", "SWIFT_DETERMINISTIC_HASHING=1"]
        let result = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, envp) }
        }
        guard result == 0 else {
            child = 0
            return .failure(bad("cannot start its drawing process: \(String(cString: strerror(result)))"))
        }
        pidfd = splashd_pidfd_open(child)
        return .success(())
    }

    /// Whether the child has ended (or its budget's time is over, or it never started).
    var isReady: Bool {
        guard case .success = started, pidfd >= 0, child > 0 else { return true }
        var fd = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&fd, 1, 0) > 0 || ContinuousClock.now >= wallDeadline
    }

    /// The child's pidfd: readable once it ended.
    var readiness: Int32? { pidfd >= 0 && child > 0 ? pidfd : nil }

    var deadline: ContinuousClock.Instant? { child > 0 ? wallDeadline : nil }

    func raster() -> Result<LogoRaster, SplashDrawError> {
        if case .failure(let error) = started { return .failure(error) }
        // Wait for the child, at most until the wall-clock budget ends.
        let left = wallDeadline - .now
        var ended = true
        if pidfd >= 0 {
            var fd = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            let ms = max(0, Int32((left / .milliseconds(1)).rounded(.up)))
            var ready: Int32
            repeat { ready = poll(&fd, 1, ms) } while ready < 0 && errno == EINTR
            ended = ready > 0
        }
        if !ended { kill(child, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        child = 0
        let said = lastLine(of: errors)
        if !ended {
            return .failure(bad("drawing it took longer than \(LogoBudget.wallSeconds) s, the budget; drawn without it"))
        }
        let signal = status & 0x7F
        if signal == SIGXCPU {
            return .failure(bad("drawing it needs more than \(LogoBudget.cpuSeconds) s of CPU, the budget"))
        }
        if said.contains("memory allocation of") || said.contains("out of memory") || said.contains("Cannot allocate memory") {
            return .failure(bad("drawing it needs more than \(LogoBudget.memoryBytes >> 20) MiB of memory, the budget"))
        }
        if signal != 0 {
            let name = String(cString: strsignal(signal))
            return .failure(bad("its drawing crashed (\(name))\(said.isEmpty ? "" : ": \(said)")"))
        }
        let code = (status >> 8) & 0xFF
        guard code == 0 else { return .failure(bad(said.isEmpty ? "its drawing failed (exit \(code))" : said)) }
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        let read = pixels.withUnsafeMutableBytes { pread(output, $0.baseAddress, $0.count, 0) }
        guard read == pixels.count else { return .failure(bad("its drawing returned \(read) bytes, not \(pixels.count)")) }
        return .success(LogoRaster(side: side, pixels: pixels))
    }

    private func bad(_ reason: String) -> SplashDrawError { .badLogo(path: path, reason: reason) }

    /// The last line the child wrote to its stderr (at most 300 bytes of it), as one line.
    private func lastLine(of fd: Int32) -> String {
        guard fd >= 0 else { return "" }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return "" }
        let count = min(Int(info.st_size), 4096)
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(Int(info.st_size) - count)) }
        let text = String(decoding: bytes.prefix(max(read, 0)), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        return String(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(300).map(Character.init))
    }

    private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// `splashd-kms render-logo`: the child `IsolatedLogo` starts. Reads the logo's bytes from
/// stdin, draws them at `--side`, writes the raw pixels to stdout; a reason on stderr and exit
/// 65 when the file cannot be drawn. Limits itself first (`LogoBudget`).
struct RenderLogo {
    static let spec = CommandSpec(
        name: "render-logo", abstract: "Draw a logo from stdin to raw pixels on stdout (the renderer's own child).",
        options: [
            OptionSpec("type", help: "What the bytes are: svg or png.", isRequired: true),
            OptionSpec("side", help: "The side of the square drawn into, in pixels.", isRequired: true, isInteger: true),
        ],
        isHidden: true)

    var type: String
    var side: Int

    init(_ parsed: ParsedCommand) {
        type = parsed.string("type") ?? ""
        side = parsed.integer("side") ?? 0
    }

    func run() throws {
        guard Self.limit() else {
            // Never draw a theme's file without the budget (a unit's SystemCallFilter may deny it).
            Self.say("cannot limit its drawing (setrlimit: errno \(errno)): not drawn")
            throw ExitCode(71)
        }
        var info = stat()
        guard fstat(0, &info) == 0, info.st_size > 0, info.st_size <= off_t(ThemeLoader.maximumAssetSize),
              (1...4096).contains(side), ["svg", "png"].contains(type)
        else {
            Self.say("render-logo: no logo on stdin")
            throw ExitCode(65)
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let read = bytes.withUnsafeMutableBytes { pread(0, $0.baseAddress, $0.count, 0) }
        guard read == bytes.count else { throw ExitCode(65) }
        let file = ThemeLoader.File(bytes: bytes, contentType: type == "svg" ? "image/svg+xml" : "image/png")
        do {
            let raster = try LogoRaster.draw(file, side: side, path: "logo")
            var offset = 0
            while offset < raster.pixels.count {
                let wrote = raster.pixels.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
                guard wrote > 0 else { throw ExitCode(74) }
                offset += wrote
            }
        } catch let error as SplashDrawError {
            if case .badLogo(_, let reason) = error { Self.say(reason) } else { Self.say("\(error)") }
            throw ExitCode(65)
        }
    }

    /// A line on stderr (the parent reads the last one).
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// CPU and address space from here on, and no core file; false when a limit cannot be set.
    static func limit() -> Bool {
        // Within limits already set lower (a limit is only ever lowered here).
        var cpu = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
        cpu.rlim_max = min(cpu.rlim_max, rlim_t(LogoBudget.cpuSeconds + 1))
        cpu.rlim_cur = min(cpu.rlim_max, rlim_t(LogoBudget.cpuSeconds))
        guard setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu) == 0 else { return false }
        var core = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &core)
        // What is mapped now (the runtime, cairo, pango, librsvg) plus the budget.
        var buffer = [UInt8](repeating: 0, count: 128)
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        let count = fd < 0 ? 0 : buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if fd >= 0 { close(fd) }
        let pages = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).split(separator: " ").first.flatMap { Int($0) } ?? 0
        var space = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &space)
        space.rlim_max = min(space.rlim_max, rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + LogoBudget.memoryBytes))
        space.rlim_cur = space.rlim_max
        return pages > 0 && setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &space) == 0
    }
}
