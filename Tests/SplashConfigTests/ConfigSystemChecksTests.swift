import Foundation
@testable import SplashConfig
import SplashCore
import Testing
import TestSupport

/// What the daemon would refuse at start about the system it runs on, `check` refuses too, at the
/// line: a control group that does not exist, a socket path that does not fit a socket address.
/// And a config file that is not one (a FIFO, a device, a huge file) is refused without reading it.
@Suite struct ConfigSystemChecksTests {
    static let groups = SystemLookup(groupExists: { $0 == "kiosk" })

    func rejection(_ text: String, system: SystemLookup = groups) -> ConfigError? {
        do {
            _ = try ConfigLoader.parse(text, file: "splashd.toml", catalog: PluginCatalog(), system: system)
            return nil
        } catch {
            return error
        }
    }

    @Test func aControlGroupThatDoesNotExistIsRefusedAtItsLine() throws {
        #expect(rejection("[socket]\ncontrol_group = \"kiosk\"\n") == nil)
        #expect(
            rejection("[socket]\nmode = \"0660\"\ncontrol_group = \"nobody-here\"\n")
                == ConfigError(file: "splashd.toml", line: 3, message: "control_group \"nobody-here\" does not exist")
        )
        // Reported with the problems of the rest of the file.
        let error = rejection("[socket]\ncontrol_group = \"gone\"\n[[step]]\nid = \"a\"\nplugin = \"nope\"\n")
        #expect(error?.problems.map(\.line) == [2, 5])
    }

    /// The real lookup: root's group exists on every system, a made-up one on none.
    @Test func theSystemLookupAsksTheNameService() {
        #expect(SystemLookup.live.groupExists("root"))
        #expect(!SystemLookup.live.groupExists("splashd-no-such-group-4711"))
        #expect(!SystemLookup.live.groupExists("root\u{0}x"))
        #expect(rejection("[socket]\ncontrol_group = \"root\"\n", system: .live) == nil)
    }

    /// `sun_path` is 108 bytes on Linux, its NUL included: 107 bytes of path fit, 108 do not.
    @Test func aSocketPathLongerThanSunPathIsRefusedAtItsLine() {
        #expect(SocketSettings.maximumPathLength == 107)
        let fits = "/run/" + String(repeating: "s", count: 102)
        #expect(fits.utf8.count == 107)
        #expect(rejection("[socket]\npath = \"\(fits)\"\n") == nil)
        #expect(
            rejection("\n[socket]\npath = \"\(fits)x\"\n")
                == ConfigError(
                    file: "splashd.toml", line: 3, message: "socket path is 108 bytes long; a Unix socket path holds at most 107"
                )
        )
        // Bytes, not characters: 54 two-byte characters are 108 bytes.
        let wide = "/" + String(repeating: "é", count: 54)
        #expect(rejection("[socket]\npath = \"\(wide)\"\n")?.message == "socket path is 109 bytes long; a Unix socket path holds at most 107")
        #expect(rejection("[socket]\npath = \"/run/a\\u0000b\"\n")?.message == "socket path must not contain a NUL character")
    }

    /// Problems print on one line each, whatever a key or value holds.
    @Test func controlCharactersInProblemsAreEscaped() {
        let error = rejection("[socket]\ncontrol_group = \"evil\\n2026-01-01 critical FORGED\\u001b[2J\"\n")
        #expect(error?.message == "control_group \"evil\n2026-01-01 critical FORGED\u{1B}[2J\" does not exist")
        #expect(error?.description == "splashd.toml:2: control_group \"evil\\u{a}2026-01-01 critical FORGED\\u{1b}[2J\" does not exist")
    }

    // MARK: Files that are not config files

    func loadError(_ path: String) -> String? {
        do {
            _ = try ConfigLoader.load(path: path, catalog: PluginCatalog(), system: Self.groups)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fifo = dir.file("splashd.toml")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(loadError(fifo) == "\(fifo): cannot read config: not a regular file")
    }

    @Test func aDeviceOrADirectoryIsRefused() throws {
        #expect(loadError("/dev/zero") == "/dev/zero: cannot read config: not a regular file")
        #expect(loadError("/tmp") == "/tmp: cannot read config: not a regular file")
    }

    /// A 100 MB file is refused by its size, before a byte of it is read.
    @Test func aFileLargerThanTheLimitIsRefusedUnread() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("huge.toml")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, 100_000_000) == 0)  // sparse: no disk used
        #expect(loadError(path) == "\(path): cannot read config: larger than 16 MiB (the limit)")
        #expect(ConfigLoader.maximumFileSize == 16 << 20)
        // At the limit it is read (and then judged as TOML: a file of NUL bytes is not).
        #expect(truncate(path, off_t(ConfigLoader.maximumFileSize)) == 0)
        #expect(loadError(path)?.hasPrefix("\(path):1: TOML syntax error") == true)
    }

    @Test func aManifestLargerThanItsLimitIsReportedAndLeftOut() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("big.toml")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("exec = \"/bin/true\"\n".utf8)))
        #expect(truncate(path, off_t(PluginCatalog.maximumManifestSize + 1)) == 0)
        #expect(mkfifo(dir.file("fifo.toml"), 0o600) == 0)  // not a regular file: skipped by the scan
        let catalog = PluginCatalog.scan(directories: [dir.path])
        #expect(catalog.manifests.isEmpty)
        #expect(catalog.problems.map(\.description) == ["\(path): cannot read plugin manifest: larger than 1 MiB (the limit)"])
    }
}
