import Foundation
import SplashClient
import SplashCore
import Testing
import TestSupport

/// `splashd check` refuses exactly what the daemon or a step would, and passes what they accept.
@MainActor @Suite struct CheckEndToEndTests {
    /// Design §7's form of routes: the check passes it, and a launch routes the reference app's link.
    @Test func specFormRoutesPassCheckAndRouteALaunch() throws {
        let config = TestConfig.instantSplash + """
            [[step]]
            id = "quick"
            plugin = "quick-action"
            critical = false
            [step.options]
            scheme = "shipthatapp"
            routes = ["pokedex", "chat"]
            """
        let state = try TemporaryDirectory()
        defer { state.remove() }
        let path = try state.write("splashd.toml", config)
        let check = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("OK, 1 steps"))

        _ = try state.write("spool/link", "shipthatapp://pokedex\n")
        let daemon = try DaemonProcess(config: config, stateDirectory: state.path)
        let renderer = try BuiltinsEndToEndTests.Renderer(daemon)
        let finished = try renderer.until(.finished)
        #expect(finished.destination?.route == "pokedex", "\(daemon.log)")
        #expect(finished.steps.first?.status == .succeeded)
        // After finished, an `open` is routed the same way and broadcast.
        let app = try daemon.connect()
        #expect(try app.request(.open(url: "shipthatapp://chat?from=push")) == .ok(id: 1))
        let event = try #require(try renderer.nextEvent())
        #expect(event.name == "open")
        #expect(event.fields["route"] == "chat")
        #expect(event.fields["url"] == "shipthatapp://chat")
        #expect(daemon.stop() == 0)
    }

    /// A bad option of a built-in plugin fails the check at the option's line, naming the step and
    /// the option: the daemon would fail that step.
    @Test func aBadBuiltinOptionFailsTheCheckAtItsLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("bad.toml", """
            [[step]]
            id = "quick"
            plugin = "quick-action"
            [step.options]
            scheme = "kiosk"

            routes = ["orders/*", "help desk"]
            """)
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        #expect(result.status == 78)
        #expect(
            result.stderr.contains(
                "\(path):7: step \"quick\": option 'routes' has a bad path \"help desk\": it has a character not allowed in a URL path"
            ),
            "\(result.stderr)"
        )
        #expect(result.stdout.isEmpty)
    }

    /// Three independent mistakes, in two steps and a section: three lines, in file order, each
    /// with the file and line; the step that depends on a broken one is not blamed too.
    @Test func everyProblemIsReportedOnItsOwnLine() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("three.toml", """
            [splash]
            slow_after = "later"

            [[step]]
            id = "counter"
            plugin = "launch-counter"
            [step.options]
            min_launch = 3

            [[step]]
            id = "fetch"
            plugin = "config-fetch"
            timeout = "0s"

            [[step]]
            id = "frame"
            plugin = "signal"
            after = ["counter", "fetch"]
            """)
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        #expect(result.status == 78)
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("splashd: ") }
        #expect(lines.count == 3, "\(result.stderr)")
        #expect(lines.count == 3 && lines[0].hasPrefix("splashd: \(path):2: bad duration \"later\" for slow_after in [splash]"))
        #expect(
            lines.count == 3
                && lines[1] == "splashd: \(path):8: step \"counter\": unknown option 'min_launch' (known: count_when, file, min_launches, version)"
        )
        #expect(lines.count == 3 && lines[2] == "splashd: \(path):13: step \"fetch\": timeout must be greater than zero")
    }
    /// `x = [[[…1…]]]` 30,000 deep (60 KB) used to kill `check` with SIGSEGV; in a plugin manifest
    /// too. Both are refused with their line and the limit.
    @Test func aDeeplyNestedConfigOrManifestIsRefusedNotACrash() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let deep = "x = " + String(repeating: "[", count: 30_000) + "1" + String(repeating: "]", count: 30_000) + "\n"
        let path = try dir.write("deep.toml", "# nested\n" + deep)
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr.contains("splashd: \(path):2: TOML syntax error: arrays and tables nested more than 128 levels deep (column 133)"),
            "\(result.stderr)"
        )

        let plugins = dir.file("plugins")
        try dir.write("plugins/deep.toml", "exec = \"/bin/true\"\n" + deep)
        let config = try dir.write("uses.toml", "[[step]]\nid = \"a\"\nplugin = \"deep\"\n")
        let manifest = try ProcessRunner.run(Binaries.splashd, ["check", "--config", config, "--plugin-dir", plugins])
        #expect(manifest.status == 78, "\(manifest.stderr)")
        #expect(manifest.stderr.contains("plugin manifest rejected: \(plugins)/deep.toml:2: TOML syntax error: arrays and tables nested more than 128 levels deep"))
        #expect(manifest.stderr.contains("splashd: \(config):3: step \"a\" uses unknown plugin \"deep\""))
    }

    /// A config saved by an editor that writes a UTF-8 byte-order mark is read as if it had none.
    @Test func aConfigWithAByteOrderMarkPasses() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("bom.toml", "\u{FEFF}[splash]\nmin_display = \"1s\"\n\n[[step]]\nid = \"a\"\nplugin = \"signal\"\n")
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(path): OK, 1 steps (0 external)\n")
    }
    /// A control group that does not exist and a socket path too long for `sun_path` fail the
    /// check at their lines, and the daemon refuses to start with the same message and exit 78:
    /// one validation for both (the daemon used to start checking only later, when it bound).
    @Test func aMissingControlGroupOrATooLongSocketPathFailsCheckAndStartAlike() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let longPath = "/tmp/" + String(repeating: "s", count: 110) + ".sock"
        let cases = [
            (
                try dir.write("group.toml", "[socket]\npath = \"\(dir.file("s.sock"))\"\ncontrol_group = \"splashd-no-such-group-4711\"\n"),
                "3: control_group \"splashd-no-such-group-4711\" does not exist"
            ),
            (
                try dir.write("long.toml", "[splash]\nmin_display = \"0ms\"\n\n[socket]\npath = \"\(longPath)\"\n"),
                "5: socket path is 120 bytes long; a Unix socket path holds at most 107"
            ),
        ]
        for (path, problem) in cases {
            let check = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
            #expect(check.status == 78)
            #expect(check.stderr == "splashd: \(path):\(problem)\n", "\(check.stderr)")

            let start = try ProcessRunner.run(
                Binaries.splashd, ["--config", path, "--state-dir", dir.file("state"), "--log-format", "text"], timeout: .seconds(20)
            )
            #expect(start.status == 78, "\(start.stderr)")
            #expect(start.stderr.contains("\(path):\(problem)"), "\(start.stderr)")
        }
    }

    /// A FIFO or a device given as the config is refused at once; `check` used to wait for a
    /// writer on the FIFO forever, and read /dev/zero until memory ran out.
    @Test func aConfigThatIsNotARegularFileIsRefusedAtOnce() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fifo = dir.file("fifo.toml")
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, "/dev/zero"] {
            let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path], timeout: .seconds(20))
            #expect(result.status == 78)
            #expect(result.stderr == "splashd: \(path): cannot read config: not a regular file\n")
        }
    }
}
