import Foundation
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// `make install DESTDIR=… BINARIES=…` (what the Debian package is made from, scripts/deb.sh) with
/// the binaries this test run built: exactly the expected files, with a package's modes; binaries
/// that are stripped and still run; man pages that are current and render cleanly; completions
/// from the binaries; and a default configuration that passes `check`. docs/packaging.md has the
/// table these paths come from.
@MainActor @Suite struct PackagingTests {
    /// Every file `make install` lays out with PREFIX=/usr, but the docs (each file of docs/).
    static let expectedFiles: Set<String> = [
        "etc/splashd/splashd.toml",
        "usr/bin/splashctl",
        "usr/bin/psplash-write",
        "usr/bin/splashd",
        "usr/bin/splashd-web",
        "usr/bin/splashd-otel",
        "usr/bin/splashd-kms",
        "usr/lib/splashd/splashd-kms-first-frame",
        "usr/lib/splashd/plugins/wait-device.toml",
        "usr/lib/splashd/plugins/wait-device/wait-device.sh",
        "usr/lib/splashd/plugins/wait-network.toml",
        "usr/lib/splashd/plugins/wait-network/wait-network.sh",
        "usr/lib/systemd/catalog/splashd.catalog",
        "usr/share/polkit-1/rules.d/50-splashd.rules",
        "usr/lib/systemd/system/splashd-finished.service", "usr/lib/systemd/system/splashd-shutdown.service",
        "usr/lib/systemd/system/splashd-web.service",
        "usr/lib/systemd/system/splashd-otel.service",
        "usr/lib/systemd/system/splashd-kms.service",
        "usr/lib/systemd/system/splashd-kms-handoff.service",
        "usr/lib/systemd/system/splashd.service",
        "usr/lib/systemd/system/splashd.socket",
        "usr/lib/sysusers.d/splashd.conf",
        "usr/lib/tmpfiles.d/splashd.conf",
        "usr/share/bash-completion/completions/splashctl",
        "usr/share/bash-completion/completions/splashd",
        "usr/share/bash-completion/completions/splashd-web",
        "usr/share/bash-completion/completions/splashd-otel",
        "usr/share/fish/vendor_completions.d/splashd-otel.fish",
        "usr/share/man/man1/splashd-otel.1.gz",
        "usr/share/zsh/vendor-completions/_splashd-otel",
        "usr/share/bash-completion/completions/splashd-kms",
        "usr/share/fish/vendor_completions.d/splashd-kms.fish",
        "usr/share/man/man1/splashd-kms.1.gz",
        "usr/share/zsh/vendor-completions/_splashd-kms",
        "usr/share/doc/splashd/examples/kiosk/README.md",
        "usr/share/doc/splashd/examples/kiosk/splashd-kiosk",
        "usr/share/doc/splashd/examples/kiosk/splashd-kiosk.service",
        "usr/share/fish/vendor_completions.d/splashd-web.fish",
        "usr/share/man/man1/splashd-web.1.gz",
        "usr/share/splashd/themes/default/logo.svg",
        "usr/share/splashd/themes/default/theme.toml",
        "usr/share/splashd/themes/reference/logo.svg",
        "usr/share/splashd/themes/reference/theme.toml",
        "usr/share/splashd/themes/reference-reveal/logo.svg",
        "usr/share/splashd/themes/reference-reveal/theme.toml",
        "usr/share/splashd/web/index.html",
        "usr/share/splashd/web/splash.css",
        "usr/share/splashd/web/splash.js",
        "usr/share/zsh/vendor-completions/_splashd-web",
        "usr/share/doc/splashd/README.md",
        "usr/share/doc/splashd/examples/splashd.toml",
        "usr/share/doc/splashd/plugins/README.md",
        "usr/share/fish/vendor_completions.d/splashctl.fish",
        "usr/share/fish/vendor_completions.d/splashd.fish",
        "usr/share/man/man1/splashctl.1.gz",
        "usr/share/man/man1/psplash-write.1.gz",
        "usr/share/man/man5/splashd.toml.5.gz",
        "usr/share/man/man8/splashd.8.gz",
        "usr/share/zsh/vendor-completions/_splashctl",
        "usr/share/zsh/vendor-completions/_splashd",
        "etc/splashd/initramfs.conf",
        "usr/share/initramfs-tools/hooks/splashd-kms",
        "usr/share/initramfs-tools/scripts/init-bottom/splashd-kms",
        "usr/share/initramfs-tools/scripts/init-top/splashd-kms",
    ]

    /// The links, and what each points at.
    static let links = ["usr/bin/splashctl": "splashd", "usr/bin/psplash-write": "splashd"]

    static let executables: Set<String> = [
        "usr/bin/splashd", "usr/bin/splashd-web", "usr/bin/splashd-otel", "usr/bin/splashd-kms", "usr/lib/splashd/splashd-kms-first-frame",
        "usr/lib/splashd/plugins/wait-device/wait-device.sh",
        "usr/lib/splashd/plugins/wait-network/wait-network.sh",
        "usr/share/initramfs-tools/hooks/splashd-kms",
        "usr/share/initramfs-tools/scripts/init-bottom/splashd-kms",
        "usr/share/initramfs-tools/scripts/init-top/splashd-kms",
    ]

    /// One installation (stripping the debug binaries takes a moment), every check on it in turn,
    /// then a second `make install` over it.
    @Test(.enabled(if: Tool.has("make"), "make is not installed"))
    func makeInstall() throws {
        let root = try TemporaryDirectory(prefix: "splashd-install")
        defer { root.remove() }
        let result = try Self.makeInstall(destination: root.path)
        try #require(result.status == 0, "make install failed:\n\(result.stdout)\(result.stderr)")
        try laysOutExactlyTheExpectedFiles(root.path)
        try splashctlIsALinkToSplashd(root.path)
        try modesAreThoseOfAPackage(root.path)
        try binariesAreStrippedAndRun(root.path)
        try systemdFilesAndPluginsAreTheRepositorys(root.path)
        try manPagesRenderWithoutWarnings(root.path)
        try completionsComeFromTheBinaries(root.path)
        try defaultConfigurationPassesCheck(root.path)
        try anExistingConfigurationIsKept(root)
    }

    func laysOutExactlyTheExpectedFiles(_ root: String) throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: "\(Binaries.packageRoot)/docs")
        let expected = Self.expectedFiles.union(docs.map { "usr/share/doc/splashd/\($0)" })
        let installed = Set(Self.paths(under: root))
        #expect(installed.subtracting(expected).sorted() == [], "installed but not expected")
        #expect(expected.subtracting(installed).sorted() == [], "expected but not installed")
    }

    /// One executable for the daemon and its clients (docs/packaging.md): splashctl and
    /// psplash-write are relative links, so it stays right under another DESTDIR or prefix.
    func splashctlIsALinkToSplashd(_ root: String) throws {
        for (path, target) in Self.links {
            let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(root)/\(path)")
            #expect(destination == target, "\(path) -> \(destination ?? "not a link")")
        }
    }

    func modesAreThoseOfAPackage(_ root: String) throws {
        for path in Self.paths(under: root, directories: true) where Self.links[path] == nil {
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(root)/\(path)")
            let mode = (attributes[.posixPermissions] as? Int ?? 0) & 0o7777
            let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
            let expected = isDirectory || Self.executables.contains(path) ? 0o755 : 0o644
            #expect(mode == expected, "\(path): \(String(mode, radix: 8))")
        }
    }

    func binariesAreStrippedAndRun(_ root: String) throws {
        // No tool, no pass: the check fails and says what to install (scripts/setup.sh tests does).
        let readelf = try #require(Tool.path("readelf"), "readelf is not installed (Debian's binutils): the binaries' sections cannot be checked")
        for tool in ["splashd", "splashctl", "splashd-web", "splashd-otel", "splashd-kms"] {
            let path = "\(root)/usr/bin/\(tool)"
            do {
                let sections = try ProcessRunner.run(readelf, ["-S", "-W", path])
                #expect(sections.status == 0, "\(sections.stderr)")
                #expect(!sections.stdout.contains(".symtab"), "\(tool) keeps its symbol table")
                #expect(!sections.stdout.contains(".debug_info"), "\(tool) keeps debug info")
            }
            let version = try ProcessRunner.run(path, ["--version"])
            #expect(version.status == 0 && version.stdout == "\(splashdVersion)\n", "\(version.stdout)\(version.stderr)")
        }
        // The first-frame helper: stripped, on the C library alone, and it runs.
        let helper = "\(root)/usr/lib/splashd/splashd-kms-first-frame"
        do {
            let sections = try ProcessRunner.run(readelf, ["-S", "-d", "-W", helper])
            #expect(!sections.stdout.contains(".symtab") && !sections.stdout.contains(".debug_info"), "the helper is stripped")
            let needed = sections.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            #expect(needed.count == 1 && needed[0].contains("[libc.so.6]"), "\(needed)")
        }
        let usage = try ProcessRunner.run(helper, [])
        #expect(usage.status == 2 && usage.stderr.hasPrefix("usage: splashd-kms-first-frame"), "\(usage.stderr)")
    }

    /// With PREFIX=/usr the units, snippets, catalog, plugins and default configuration are the
    /// repository's files as they are (another prefix is written into the units).
    func systemdFilesAndPluginsAreTheRepositorys(_ root: String) throws {
        let pairs = [
            ("systemd/splashd.service", "usr/lib/systemd/system/splashd.service"),
            ("systemd/splashd.socket", "usr/lib/systemd/system/splashd.socket"),
            ("systemd/splashd-finished.service", "usr/lib/systemd/system/splashd-finished.service"),
            ("systemd/splashd-shutdown.service", "usr/lib/systemd/system/splashd-shutdown.service"),
            ("systemd/splashd-web.service", "usr/lib/systemd/system/splashd-web.service"),
            ("systemd/splashd-otel.service", "usr/lib/systemd/system/splashd-otel.service"),
            ("systemd/splashd-kms.service", "usr/lib/systemd/system/splashd-kms.service"),
            ("systemd/splashd-kms-handoff.service", "usr/lib/systemd/system/splashd-kms-handoff.service"),
            ("renderer/web/splash.js", "usr/share/splashd/web/splash.js"),
            ("renderer/themes/reference/theme.toml", "usr/share/splashd/themes/reference/theme.toml"),
            ("systemd/sysusers.d/splashd.conf", "usr/lib/sysusers.d/splashd.conf"),
            ("systemd/tmpfiles.d/splashd.conf", "usr/lib/tmpfiles.d/splashd.conf"),
            ("systemd/splashd.catalog", "usr/lib/systemd/catalog/splashd.catalog"),
            ("packaging/polkit/50-splashd.rules", "usr/share/polkit-1/rules.d/50-splashd.rules"),
            ("plugins/wait-device.toml", "usr/lib/splashd/plugins/wait-device.toml"),
            ("plugins/wait-network/wait-network.sh", "usr/lib/splashd/plugins/wait-network/wait-network.sh"),
            ("packaging/splashd.toml", "etc/splashd/splashd.toml"),
        ]
        for (source, installed) in pairs {
            let original = FileManager.default.contents(atPath: "\(Binaries.packageRoot)/\(source)")
            #expect(original != nil && original == FileManager.default.contents(atPath: "\(root)/\(installed)"), "\(installed)")
        }
    }

    func manPagesRenderWithoutWarnings(_ root: String) throws {
        let groff = try #require(Tool.path("groff"), "groff is not installed (Debian's groff-base): the man pages cannot be rendered")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for page in ["man8/splashd.8.gz", "man1/splashctl.1.gz", "man1/splashd-web.1.gz", "man1/splashd-otel.1.gz", "man1/splashd-kms.1.gz",
                     "man5/splashd.toml.5.gz"] {
            let plain = dir.file("page")
            let unzip = try ProcessRunner.run(Tool.path("sh")!, ["-c", "gzip -dc \"$0\" > \"$1\"", "\(root)/usr/share/man/\(page)", plain])
            #expect(unzip.status == 0, "\(unzip.stderr)")
            let rendered = try ProcessRunner.run(groff, ["-mandoc", "-Tutf8", "-ww", "-z", plain], environment: ["LC_ALL": "C.UTF-8"])
            #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(page): \(rendered.stderr)")
        }
    }

    /// The binaries write them: swift-argument-parser (splashd's too, past its own reader of the run
    /// command line), and the renderers' `CommandSpec`.
    func completionsComeFromTheBinaries(_ root: String) throws {
        for tool in ["splashd", "splashctl", "splashd-web", "splashd-otel", "splashd-kms"] {
            let word = ["splashd": "state-dir", "splashctl": "critical-chain", "splashd-web": "url-file", "splashd-otel": "device-id-file",
                        "splashd-kms": "display-lock"][tool]!
            for file in [
                "usr/share/bash-completion/completions/\(tool)", "usr/share/zsh/vendor-completions/_\(tool)",
                "usr/share/fish/vendor_completions.d/\(tool).fish",
            ] {
                let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
                #expect(text.contains(tool) && text.contains(word), "\(file)")
            }
            let bash = try ProcessRunner.run(Tool.path("bash")!, ["-n", "\(root)/usr/share/bash-completion/completions/\(tool)"])
            #expect(bash.status == 0, "\(bash.stderr)")
        }
    }

    /// /etc/splashd/splashd.toml names the group the package creates. As in ExamplesTests: where
    /// the group is missing that is its only problem, and with `root` in its place it passes.
    func defaultConfigurationPassesCheck(_ root: String) throws {
        let path = "\(root)/etc/splashd/splashd.toml"
        let asIs = try ProcessRunner.run(Binaries.splashd, ["check", "--config", path])
        if asIs.status != 0 {
            let problems = asIs.stderr.split(separator: "\n").filter { $0.hasPrefix("splashd: ") }
            #expect(problems.count == 1 && problems[0].hasSuffix(": control_group \"splash\" does not exist"), "\(asIs.stderr)")
        }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\ncontrol_group = \"splash\"\n"))
        let copy = try dir.write("splashd.toml", text.replacingOccurrences(of: "control_group = \"splash\"", with: "control_group = \"root\""))
        let result = try ProcessRunner.run(Binaries.splashd, ["check", "--config", copy])
        #expect(result.status == 0 && result.stdout.hasSuffix(": OK, 4 steps (0 external)\n"), "\(result.stdout)\(result.stderr)")
    }

    /// Installing again leaves an operator's /etc/splashd/splashd.toml alone.
    func anExistingConfigurationIsKept(_ root: TemporaryDirectory) throws {
        let operators = "[splash]\nmin_display = \"2s\"\n"
        try root.write("etc/splashd/splashd.toml", operators)
        let again = try Self.makeInstall(destination: root.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(root.read("etc/splashd/splashd.toml") == operators)
    }

    /// The committed pages were made from the command lines these binaries have (`make man`
    /// regenerates them).
    @Test(.enabled(if: Tool.has("sha256sum"), "sha256sum is not installed"), arguments: ["splashd.8", "splashctl.1", "splashd-web.1", "splashd-otel.1", "splashd-kms.1"])
    func generatedManPagesAreCurrent(page: String) throws {
        let tool = String(page.prefix { $0 != "." })
        let text = try String(contentsOfFile: "\(Binaries.packageRoot)/man/\(page)", encoding: .utf8)
        let recorded = text.split(separator: "\n").dropFirst().first.flatMap { line in
            line.range(of: "(sha256 ").map { String(line[$0.upperBound...].prefix(64)) }
        }
        let binary = tool == "splashctl" ? Binaries.splashctl : "\(Binaries.directory)/\(tool)"
        let dump = try ProcessRunner.run(binary, ["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let hash = try ProcessRunner.run(Tool.path("sha256sum")!, [try dir.write("dump.json", dump.stdout)])
        #expect(recorded == String(hash.stdout.prefix(64)), "man/\(page) is out of date: run `make man`")
    }

    static func makeInstall(destination: String) throws -> CommandResult {
        try ProcessRunner.run(
            Tool.path("make")!,
            ["-s", "-C", Binaries.packageRoot, "install", "DESTDIR=\(destination)", "BINARIES=\(Binaries.directory)"],
            timeout: .seconds(120)
        )
    }

    /// The paths under `root`, relative to it: the files (and symlinks), or everything.
    static func paths(under root: String, directories: Bool = false) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var result: [String] = []
        while let path = enumerator?.nextObject() as? String {
            let type = enumerator?.fileAttributes?[.type] as? FileAttributeType
            if directories || type != .typeDirectory { result.append(path) }
        }
        return result
    }
}

/// Finding the tools the checks need.
enum Tool {
    static func path(_ tool: String) -> String? { SystemdTools.path(tool) }
    static func has(_ tool: String) -> Bool { path(tool) != nil }
}
