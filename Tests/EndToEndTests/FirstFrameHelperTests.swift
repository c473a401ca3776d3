import Foundation
import SplashKMS
import Testing
import TestSupport
import SplashScene

/// splashd-kms-first-frame (helpers/, `make first-frame`): it always becomes the renderer with
/// its arguments as they were, and shows the cache's pictures only when the index answers for
/// those arguments and the theme's files as they are; its `--condition` is the unit's. Here
/// without a DRM device: what it does on one, the VM tests show (Tests/vm/test_kms.py).
@MainActor @Suite struct FirstFrameHelperTests {
    var helper: String { "\(Binaries.directory)/splashd-kms-first-frame" }

    /// A renderer that says what it was given: its name, arguments and the hand-over variable.
    func renderer(in dir: TemporaryDirectory) throws -> String {
        try dir.write("renderer", "#!/bin/sh\necho \"$0|$*|${SPLASHD_KMS_FIRST_FRAMES-none}\"\n", executable: true)
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try #require(FileManager.default.isExecutableFile(atPath: helper), "\(helper) is built by `make first-frame`")
        return try ProcessRunner.run(helper, arguments, environment: environment)
    }

    @Test func withNoIndexItBecomesTheRendererWithItsArgumentsAsTheyWere() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let renderer = try renderer(in: dir)
        let result = try run([renderer, "--cache-dir", dir.path, "--theme", "a b"])
        #expect(result.status == 0)
        #expect(result.stdout == "\(renderer)|--cache-dir \(dir.path) --theme a b|none\n")
        #expect(result.stderr.contains("no first frame from the cache: no index (\(dir.path)/first-frames: No such file or directory)"), "\(result.stderr)")
    }

    @Test func withNoCacheDirectoryOrForASubcommandItOnlyBecomesTheRenderer() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let renderer = try renderer(in: dir)
        for arguments in [[renderer], [renderer, "--theme", dir.path], [renderer, "check", "--cache-dir", dir.path]] {
            let result = try run(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            #expect(result.stdout == "\(renderer)|\(arguments.dropFirst().joined(separator: " "))|none\n")
        }
    }

    @Test func aHandOverLeftInTheEnvironmentIsNotPassedOn() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let renderer = try renderer(in: dir)
        let result = try run([renderer], environment: [FirstFrameIndex.handOverVariable: "5 41"])
        #expect(result.stdout == "\(renderer)||none\n")
    }

    /// An index for the renderer's arguments and the theme's files as they are: the helper goes on
    /// to the device (absent here), so the Swift and C hashes of the arguments agree, and so do
    /// the files' size and time as both read them.
    @Test func anIndexIsUsedOnlyForItsArgumentsAndTheThemeAsItWas() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let renderer = try renderer(in: dir)
        let theme = try dir.write("theme.toml", "name = \"X\"\n")
        let arguments = ["--cache-dir", dir.path, "--device", "\(dir.path)/card9", "--rotate", "90"]
        func index(for arguments: [String], absent: [String] = []) throws {
            let source = try #require(FirstFrameIndex.Source(stating: theme))
            let key = FirstFrameCache.Key(fingerprint: 1, width: 64, height: 48, turn: 90)
            #expect(key.fileName == "first-frame-64x48-90.raw")
            let text = try #require(FirstFrameIndex.encode(
                arguments: FirstFrameIndex.argumentsHash(arguments),
                outputs: [.init(name: "Virtual-1", key: key)], files: [source], absent: absent))
            _ = try dir.write("first-frames", text)
        }
        func stderr() throws -> String {
            let result = try run([renderer] + arguments)
            #expect(result.stdout == "\(renderer)|\(arguments.joined(separator: " "))|none\n", "it becomes the renderer whatever the index says")
            return result.stderr
        }

        try index(for: arguments)
        #expect(try stderr().contains("no first frame from the cache: cannot open \(dir.path)/card9: No such file or directory"))

        try index(for: arguments.dropLast() + ["180"])
        #expect(try stderr().contains("no first frame from the cache: it was drawn for other arguments"))

        try index(for: arguments, absent: ["\(dir.path)/renderer"])
        #expect(try stderr().contains("no first frame from the cache: the theme changed (\(dir.path)/renderer appeared)"))

        try index(for: arguments)
        _ = try dir.write("theme.toml", "name = \"Y\"\n")
        #expect(try stderr().contains("no first frame from the cache: the theme changed (\(theme))"))

        _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t1\noutput\tVirtual-1\t64\t48\tf.raw")
        #expect(try stderr().contains("no first frame from the cache: \(dir.path)/first-frames is cut short"))
        _ = try dir.write("first-frames", "splashd-kms first frames 2\n")
        #expect(try stderr().contains("no first frame from the cache: \(dir.path)/first-frames is of another format"))
        _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t1\noutput\tVirtual-1\t0\t48\tf.raw\n")
        #expect(try stderr().contains("\(dir.path)/first-frames: line 3 is not an output"))
    }

    /// Issue 48: a number out of range and a name longer than the helper's fields are refused
    /// with their reason. The helper used to take a width of 4294967360 as 64 (a 32-bit cast of
    /// what strtoul read) and cut file names at 127 bytes, so that an index could name a picture
    /// it never meant.
    @Test func outOfRangeNumbersAndOverLongNamesAreRefusedWithTheirReason() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let renderer = try renderer(in: dir)
        let arguments = ["--cache-dir", dir.path, "--device", "\(dir.path)/card9"]
        let hash = String(FirstFrameIndex.argumentsHash(arguments), radix: 16)
        let index = dir.file("first-frames")
        let cases: [(line: String, reason: String)] = [
            ("output\tV\t4294967360\t48\tf.raw", "\(index): line 3 is not an output: its size 4294967360x48 is not two numbers from 1 to 8192"),
            ("output\tV\t64\t18446744073709551680\tf.raw", "\(index): line 3 is not an output: its size 64x18446744073709551680 is not two numbers from 1 to 8192"),
            ("output\tV\t64abc\t48\tf.raw", "\(index): line 3 is not an output: its size 64abcx48 is not two numbers from 1 to 8192"),
            ("output\tV\t+64\t48\tf.raw", "\(index): line 3 is not an output: its size +64x48 is not two numbers from 1 to 8192"),
            ("output\t\(String(repeating: "N", count: 64))\t64\t48\tf.raw", "\(index): line 3 is not an output: its name is 64 bytes, more than 63"),
            ("output\tV\t64\t48\t\(String(repeating: "f", count: 127)).raw", "\(index): line 3 is not an output: its file's name is 131 bytes, more than 127"),
        ]
        for (line, reason) in cases {
            _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t\(hash)\n\(line)\n")
            let result = try run([renderer] + arguments)
            #expect(result.stdout == "\(renderer)|\(arguments.joined(separator: " "))|none\n", "it becomes the renderer whatever the index says")
            #expect(result.stderr == "splashd-kms-first-frame: no first frame from the cache: \(reason)\n", "\(line.prefix(80)): \(result.stderr)")
        }
        // The arguments' hash: hex digits only, at most 16 of them. (Not the hash with a digit
        // more: a hash of fewer than 16 digits, one in 16 temporary directories, stays valid.)
        for value in [String(repeating: "1", count: 17), "0x\(hash)", "-1", ""] {
            _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t\(value)\noutput\tV\t64\t48\tf.raw\n")
            let result = try run([renderer] + arguments)
            #expect(result.stderr.contains("\(index): line 2: the arguments' hash \(value) is not 1 to 16 hex digits"), "\(value): \(result.stderr)")
        }
        // The theme file's size and time: decimal numbers.
        _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t\(hash)\noutput\tV\t64\t48\tf.raw\nfile\t12x\t5\t/etc/hostname\n")
        #expect(try run([renderer] + arguments).stderr.contains("\(index): line 4: the size 12x or the time 5 is not a number"))
        // Within the bounds the index answers, and the helper goes on to the device.
        _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t\(hash)\noutput\t\(String(repeating: "N", count: 63))\t8192\t1\t\(String(repeating: "f", count: 127))\n")
        #expect(try run([renderer] + arguments).stderr.contains("cannot open \(dir.path)/card9: No such file or directory"))
    }

    /// What the index names reaches the journal escaped: one line stays one line, with no
    /// terminal control in it.
    @Test func controlCharactersOfTheIndexAreEscapedInTheLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let renderer = try renderer(in: dir)
        let hostile = try dir.write("e\u{1B}[31mred\r", "")
        _ = try dir.write("first-frames", "splashd-kms first frames 1\narguments\t1\noutput\tV\t1\t1\tf\nabsent\t\(hostile)\n")
        let result = try run([renderer, "--cache-dir", dir.path])
        #expect(result.stderr == "splashd-kms-first-frame: no first frame from the cache: the theme changed (\(dir.path)/e\\x1b[31mred\\x0d appeared)\n",
                "\(result.stderr.debugDescription)")
    }

    /// `--condition`: 1 while the renderer the initramfs started runs (its PID file names a live
    /// process whose command line starts with @ and whose name starts with splashd-kms), else 0.
    @Test func theConditionSkipsTheUnitOnlyWhileTheInitramfsRendererRuns() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let pidFile = dir.file("initramfs.pid")
        #expect(try run(["--condition", pidFile]).status == 0, "no PID file")
        _ = try dir.write("initramfs.pid", "\(getpid())\n")
        #expect(try run(["--condition", pidFile]).status == 0, "a process that is not the renderer")
        // A process named splashd-kms… whose command line starts with @, as Initramfs.prepare makes it.
        let sleeper = dir.file("splashd-kms-sleep")
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: sleeper)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec -a @splashd-kms \"$0\" 600", sleeper]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let pid = process.processIdentifier
        _ = try dir.write("initramfs.pid", "\(pid)\n")
        // Until bash has become the sleeper (its exec): a bounded wait on /proc, not a sleep.
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) != "splashd-kms-sle\n", ContinuousClock.now < deadline {
            _ = poll(nil, 0, 10)
        }
        let result = try run(["--condition", pidFile])
        #expect(result.status == 1)
        #expect(result.stdout == "the renderer the initramfs started (PID \(pid)) has the display: no second one\n")
        _ = try dir.write("initramfs.pid", "\(pid) 7\n")
        #expect(try run(["--condition", pidFile]).status == 0, "not a PID file")
    }

    /// The renderer takes a hand-over only for a descriptor it was started with: one named in
    /// the variable but not open is ignored, with a warning, before anything is opened (a later
    /// open could have reused the number).
    @Test func theRendererIgnoresAHandOverOfADescriptorItWasNotStartedWith() throws {
        let result = try ProcessRunner.run("\(Binaries.directory)/splashd-kms", ["--theme", "/nonexistent/theme", "--display-lock", "/nonexistent/lock"],
                                           environment: [FirstFrameIndex.handOverVariable: "77 41,42"])
        #expect(result.status == 78, "the theme cannot be read: \(result.stderr)")
        #expect(result.stderr.contains("SPLASHD_KMS_FIRST_FRAMES names no descriptor this process was started with: ignored"), "\(result.stderr)")
    }

    @Test func withoutARendererItSaysHowItIsUsed() throws {
        let result = try run([])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("usage: splashd-kms-first-frame RENDERER [ARGUMENT...]"), "\(result.stderr)")
        let missing = try run(["/nonexistent/renderer"])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("cannot run /nonexistent/renderer: No such file or directory"))
    }
}
