import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// The files in `systemd/`, checked offline with systemd's own tools: nothing is installed into,
/// started on or read from the live system's units; every check works on copies in a temp dir.
@MainActor @Suite struct SystemdUnitTests {
    static let units = ["splashd.service", "splashd.socket", "splashd-finished.service"]

    @Test(.enabled(if: SystemdTools.has("systemd-analyze"), "systemd-analyze is not installed"))
    func unitsVerifyWithoutWarnings() throws {
        let dir = try TemporaryDirectory(prefix: "splashd-units")
        defer { dir.remove() }
        let paths = try SystemdTools.copyUnits(Self.units, to: dir)
        let result = try ProcessRunner.run(SystemdTools.path("systemd-analyze")!, ["verify"] + paths)
        let ours = SystemdTools.linesAbout(Self.units, in: result.stdout + result.stderr)
        #expect(ours.isEmpty, "systemd-analyze verify warns about our units:\n\(ours.joined(separator: "\n"))")
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The check above would notice a mistake: a unit with an unknown key draws a warning.
    @Test(.enabled(if: SystemdTools.has("systemd-analyze"), "systemd-analyze is not installed"))
    func verifyReportsABrokenUnit() throws {
        let dir = try TemporaryDirectory(prefix: "splashd-units")
        defer { dir.remove() }
        let paths = try SystemdTools.copyUnits(Self.units, to: dir)
        let socket = try String(contentsOfFile: paths[1], encoding: .utf8)
        try socket.replacingOccurrences(of: "SocketMode=0660", with: "SocketMode=0660\nListenStreem=/run/x")
            .write(toFile: paths[1], atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(SystemdTools.path("systemd-analyze")!, ["verify"] + paths)
        let ours = SystemdTools.linesAbout(Self.units, in: result.stdout + result.stderr)
        #expect(ours.contains { $0.contains("ListenStreem") })
    }

    @Test(
        .enabled(if: SystemdTools.has("systemd-analyze"), "systemd-analyze is not installed"),
        arguments: ["splashd.service", "splashd-finished.service"]
    )
    func exposureIsAtMostTwo(unit: String) throws {
        let dir = try TemporaryDirectory(prefix: "splashd-units")
        defer { dir.remove() }
        let paths = try SystemdTools.copyUnits(Self.units, to: dir)
        let path = paths[Self.units.firstIndex(of: unit)!]
        let analyze = SystemdTools.path("systemd-analyze")!
        let result = try ProcessRunner.run(analyze, ["security", "--offline=true", "--no-pager", path])
        let exposure = SystemdTools.overallExposure(in: result.stdout)
        #expect(exposure != nil, "no overall exposure in:\n\(result.stdout)\(result.stderr)")
        if let exposure { #expect(exposure <= 2.0, "\(unit): exposure \(exposure)\n\(result.stdout)") }
        // The same bound as systemd enforces it (the threshold is on its 0-100 scale).
        let gate = try ProcessRunner.run(analyze, ["security", "--offline=true", "--threshold=20", "--no-pager", path])
        #expect(gate.status == 0, "\(gate.stdout)\(gate.stderr)")
    }

    @Test(.enabled(if: SystemdTools.has("journalctl"), "journalctl is not installed"))
    func catalogDocumentsEveryMessageID() throws {
        let root = try TemporaryDirectory(prefix: "splashd-catalog")
        defer { root.remove() }
        let text = try String(contentsOfFile: SystemdTools.file("splashd.catalog"), encoding: .utf8)
        try root.write("usr/lib/systemd/catalog/splashd.catalog", text)
        let journalctl = SystemdTools.path("journalctl")!
        let update = try ProcessRunner.run(journalctl, ["--root=\(root.path)", "--update-catalog"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stderr.isEmpty, "\(update.stderr)")
        #expect(root.exists("var/lib/systemd/catalog/database"))

        let list = try ProcessRunner.run(journalctl, ["--root=\(root.path)", "--list-catalog", "--no-pager"])
        #expect(list.status == 0, "\(list.stderr)")
        var listed: [String: String] = [:]
        for line in list.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { listed[String(parts[0])] = String(parts[1]) }
        }
        let ids = LaunchLogEvent.allCases.map(\.messageID)
        #expect(Set(listed.keys) == Set(ids))
        for id in ids {
            #expect(listed[id]?.hasPrefix("splashd: ") == true, "\(id): \(listed[id] ?? "missing")")
            let entry = try ProcessRunner.run(journalctl, ["--root=\(root.path)", "--dump-catalog", "--no-pager", id])
            #expect(entry.status == 0, "\(entry.stderr)")
            for header in ["-- \(id)", "Subject: ", "Defined-By: splashd", "Support: ", "Documentation: "] {
                #expect(entry.stdout.contains(header), "\(id) has no \(header)")
            }
        }
    }

    @Test(.enabled(if: SystemdTools.has("systemd-sysusers") && SystemdTools.has("systemd-tmpfiles"), "systemd-sysusers or systemd-tmpfiles is not installed"))
    func sysusersAndTmpfilesCreateTheUserGroupAndDirectories() throws {
        let root = try TemporaryDirectory(prefix: "splashd-root")
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.file("etc"), withIntermediateDirectories: true)
        let users = try ProcessRunner.run(
            SystemdTools.path("systemd-sysusers")!, ["--root=\(root.path)", SystemdTools.file("sysusers.d/splashd.conf")]
        )
        #expect(users.status == 0, "\(users.stderr)")
        let passwd = root.read("etc/passwd") ?? ""
        let group = root.read("etc/group") ?? ""
        let user = passwd.split(separator: "\n").first { $0.hasPrefix("splashd:") }?.split(separator: ":", omittingEmptySubsequences: false)
        #expect(user?[6] == "/usr/sbin/nologin" || user?[6] == "/sbin/nologin", "\(passwd)")
        let splash = group.split(separator: "\n").first { $0.hasPrefix("splash:") }?.split(separator: ":", omittingEmptySubsequences: false)
        #expect(splash?.last?.split(separator: ",").contains("splashd") == true, "splashd is a member of splash: \(group)")

        let dirs = try ProcessRunner.run(
            SystemdTools.path("systemd-tmpfiles")!,
            ["--root=\(root.path)", "--create", SystemdTools.file("tmpfiles.d/splashd.conf")]
        )
        #expect(dirs.status == 0, "\(dirs.stderr)")
        let uid = user.flatMap { UInt32($0[2]) }
        for (path, mode, owner) in [
            ("run/splashd", 0o755, uid), ("var/lib/splashd", 0o700, uid), ("etc/splashd/plugins.d", 0o755, UInt32(0)),
        ] {
            var info = stat()
            #expect(stat(root.file(path), &info) == 0, "\(path) was not created")
            #expect(info.st_mode & 0o7777 == mode, "\(path): mode \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_uid == owner, "\(path): owner \(info.st_uid)")
        }
    }

    /// The units, the daemon's defaults and the packaging name the same socket, group and binaries.
    @Test func unitsAgreeWithTheDaemonAndThePackaging() throws {
        let socket = try SystemdTools.settings(of: "splashd.socket")
        #expect(socket["ListenStream"] == [SocketDefaults.path])
        #expect(socket["SocketMode"] == ["0660"])
        #expect(socket["SocketGroup"] == ["splash"])
        let service = try SystemdTools.settings(of: "splashd.service")
        #expect(service["Type"] == ["notify"])
        #expect(service["NotifyAccess"] == ["main"])
        #expect(service["ExecStart"]?.first?.hasPrefix("/usr/bin/splashd") == true)
        #expect(service["ExecReload"] == ["/bin/kill -HUP $MAINPID"])
        #expect(service["User"] == ["splashd"])
        #expect(service["RuntimeDirectory"] == ["splashd"])
        #expect(service["StateDirectory"] == ["splashd"])
        #expect(service["ConfigurationDirectory"] == ["splashd"])
        let sysusers = try String(contentsOfFile: SystemdTools.file("sysusers.d/splashd.conf"), encoding: .utf8)
        let entries = sysusers.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").prefix(3).map(String.init) }
        #expect(entries.contains(["g", "splash", "-"]))
        #expect(entries.contains { $0.count >= 2 && $0[0] == "u" && $0[1] == "splashd" })
        #expect(entries.contains(["m", "splashd", "splash"]))
    }

    /// Issue 48: splashd-web ran as splashd, so polkit's grant (per user) to start, restart and
    /// kill the app's unit was the bridge's too. It runs as a user of its own, made by the same
    /// sysusers snippet as splashd's, a member of splash (the socket's group, and the shipped
    /// control_group), and the rule names splashd alone.
    @Test(.enabled(if: SystemdTools.has("systemd-sysusers"), "systemd-sysusers is not installed"))
    func theWebBridgeRunsAsAUserOfItsOwnWithoutThePolkitGrant() throws {
        let web = try SystemdTools.settings(of: "splashd-web.service")
        let daemon = try SystemdTools.settings(of: "splashd.service")
        let bridgeUser = try #require(web["User"]?.first)
        let daemonUser = try #require(daemon["User"]?.first)
        #expect(bridgeUser != daemonUser, "splashd-web.service runs as the daemon's user \(daemonUser)")
        #expect(web["Group"] == ["splash"], "the socket's group and the control group")
        #expect(web["DynamicUser"] == nil)

        let root = try TemporaryDirectory(prefix: "splashd-root")
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.file("etc"), withIntermediateDirectories: true)
        let made = try ProcessRunner.run(SystemdTools.path("systemd-sysusers")!, ["--root=\(root.path)", SystemdTools.file("sysusers.d/splashd.conf")])
        #expect(made.status == 0, "\(made.stderr)")
        let passwd = (root.read("etc/passwd") ?? "").split(separator: "\n").map { $0.split(separator: ":", omittingEmptySubsequences: false) }
        let uid = { (name: String) in passwd.first { $0.first.map(String.init) == name }.flatMap { UInt32($0[2]) } }
        let bridgeUID = try #require(uid(bridgeUser), "sysusers.d/splashd.conf makes no user \(bridgeUser)")
        #expect(bridgeUID != uid(daemonUser), "the bridge's uid is the daemon's")
        let splash = (root.read("etc/group") ?? "").split(separator: "\n").first { $0.hasPrefix("splash:") }
        #expect(splash?.split(separator: ":", omittingEmptySubsequences: false).last?.split(separator: ",").contains(Substring(bridgeUser)) == true,
                "\(bridgeUser) is not in splash: \(splash ?? "no group")")
        let config = try String(contentsOfFile: "\(Binaries.packageRoot)/packaging/splashd.toml", encoding: .utf8)
        #expect(config.contains("\ncontrol_group = \"splash\"\n"), "the bridge's commands need control_group = \"splash\"")

        // The polkit rule: one subject, the daemon's user; nothing for the bridge's.
        let rule = try String(contentsOfFile: "\(Binaries.packageRoot)/packaging/polkit/50-splashd.rules", encoding: .utf8)
        let subjects = rule.components(separatedBy: "subject.user").dropFirst().map { $0.prefix(40) }
        #expect(subjects.count == 1 && subjects.first?.hasPrefix(" !== \"\(daemonUser)\")") == true, "\(subjects)")
        #expect(!rule.contains(bridgeUser) && !rule.contains("subject.isInGroup"), "the rule grants the bridge something")
    }

    /// The finished unit's command, run as systemd would run it: it returns 0 once a real daemon's
    /// launch is finished, and fails (69) when no daemon runs.
    @Test func finishedUnitCommandWaitsForTheLaunchToFinish() throws {
        let command = try SystemdTools.settings(of: "splashd-finished.service")["ExecStart"]?.first ?? ""
        var words = command.split(separator: " ").map(String.init)
        #expect(words.first == "/usr/bin/splashctl")
        #expect(Array(words.dropFirst().prefix(2)) == ["wait", "finished"])
        words[0] = Binaries.splashctl

        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plugins = try ScriptPlugins(in: dir)
        try plugins.add("quick", #"echo '{"facts":{"authenticated":true}}'"#)
        let daemon = try DaemonProcess(
            config: TestConfig.splash(exitAnimation: "50ms") + """
                [[step]]
                id = "fetch"
                plugin = "quick"
                """,
            pluginDirectories: [plugins.directory]
        )
        let waited = try ProcessRunner.run(words[0], Array(words.dropFirst()), environment: ["SPLASHD_SOCKET": daemon.socketPath])
        #expect(waited.status == 0, "\(waited.stderr)")
        guard case .state(let state) = try daemon.connect().request(.state) else {
            Issue.record("no state reply")
            return
        }
        #expect(state.phase == .finished)
        #expect(daemon.stop() == 0)

        let gone = try ProcessRunner.run(words[0], Array(words.dropFirst()), environment: ["SPLASHD_SOCKET": daemon.socketPath])
        #expect(gone.status == 69, "\(gone.stdout)\(gone.stderr)")
    }
}

/// Finding systemd's tools and preparing copies of the units for them.
enum SystemdTools {
    /// The absolute path of `tool` on `$PATH` (or in /usr/bin, /bin), nil when absent.
    static func path(_ tool: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        return directories.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func has(_ tool: String) -> Bool { path(tool) != nil }

    /// `systemd/NAME` in the package.
    static func file(_ name: String) -> String { "\(Binaries.packageRoot)/systemd/\(name)" }

    /// Copies `units` into `dir`, pointing their commands at the built binaries (verify wants every
    /// `Exec*=` binary to exist); returns the copies' paths in order.
    static func copyUnits(_ units: [String], to dir: TemporaryDirectory) throws -> [String] {
        var replaced = 0
        let paths = try units.map { name in
            var text = try String(contentsOfFile: file(name), encoding: .utf8)
            for (installed, built) in [("/usr/bin/splashctl", Binaries.splashctl), ("/usr/bin/splashd", Binaries.splashd)] {
                replaced += text.components(separatedBy: installed).count - 1
                text = text.replacingOccurrences(of: installed, with: built)
            }
            return try dir.write(name, text)
        }
        #expect(replaced >= 2, "the units run /usr/bin/splashd and /usr/bin/splashctl")
        return paths
    }

    /// The lines of `output` that are about one of `units` (by name or by path).
    static func linesAbout(_ units: [String], in output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { line in units.contains { line.contains($0) } }
    }

    /// The number in `→ Overall exposure level for X.service: 1.4 OK`.
    static func overallExposure(in output: String) -> Double? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Overall exposure level") }),
              let colon = line.lastIndex(of: ":")
        else { return nil }
        return line[line.index(after: colon)...].split(separator: " ").first.flatMap { Double($0) }
    }

    /// A unit file's settings: key → values in order (sections are not told apart; keys in these
    /// units are unique across sections). Comments and blank lines are skipped.
    static func settings(of unit: String) throws -> [String: [String]] {
        let text = try String(contentsOfFile: file(unit), encoding: .utf8)
        var result: [String: [String]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("[") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return result
    }
}
