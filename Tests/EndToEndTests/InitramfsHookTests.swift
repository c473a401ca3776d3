import Foundation
import Testing
import TestSupport

/// splashd-kms's initramfs-tools hook (`initramfs/hooks/splashd-kms`), run as `mkinitramfs` runs
/// it: with Debian's `hook-functions`, into a real temporary `DESTDIR` (the VM test boots the
/// image it makes, Tests/vm/test_kms_initramfs.py). A hostile theme and a hostile configuration
/// value (issue 48, item 10).
@MainActor @Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/initramfs-tools/hook-functions"), "initramfs-tools-core is not installed (scripts/setup.sh tests)"))
final class InitramfsHookTests {
    let work: TemporaryDirectory
    /// A secret elsewhere on the machine, which nothing may put into the initramfs.
    let secret: String
    static let secretText = "root:SECRET-HASH-NOT-FOR-THE-INITRD:19000:0:99999:7:::\n"

    init() throws {
        work = try TemporaryDirectory(prefix: "splashd-initramfs-hook")
        secret = try work.write("shadow", Self.secretText)
    }

    deinit { work.remove() }

    /// A theme the renderer can draw, in `work/name`: theme.toml, its logo, and `extra` files
    /// (name: contents) and links (name: target) it does not reference.
    func theme(_ name: String, files: [String: String] = [:], links: [String: String] = [:]) throws -> String {
        let directory = work.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "name = \"Hostile\"\nlogo = \"logo.svg\"\n".write(toFile: "\(directory)/theme.toml", atomically: true, encoding: .utf8)
        let logo = try String(contentsOfFile: "\(Binaries.packageRoot)/renderer/themes/default/logo.svg", encoding: .utf8)
        try logo.write(toFile: "\(directory)/logo.svg", atomically: true, encoding: .utf8)
        for (file, text) in files { try text.write(toFile: "\(directory)/\(file)", atomically: true, encoding: .utf8) }
        for (link, target) in links { try FileManager.default.createSymbolicLink(atPath: "\(directory)/\(link)", withDestinationPath: target) }
        return directory
    }

    /// Runs the hook with `settings` as /etc/splashd/initramfs.conf into a new DESTDIR; its
    /// result and the DESTDIR.
    func runHook(_ settings: String) throws -> (CommandResult, String) {
        let destination = work.file("destdir-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        let conf = try work.write("initramfs.conf", settings)
        // The renderer as a script that runs this build's: `check` is the real one, and
        // copy_exec copies a few bytes, not the debug build.
        let renderer = try work.write("splashd-kms", "#!/bin/sh\nexec '\(Binaries.directory)/splashd-kms' \"$@\"\n", executable: true)
        let result = try ProcessRunner.run("/bin/sh", ["\(Binaries.packageRoot)/initramfs/hooks/splashd-kms"], environment: [
            "DESTDIR": destination, "version": "0-splashd-test", "verbose": "n",
            "SPLASHD_INITRAMFS_CONF": conf, "SPLASHD_KMS": renderer,
        ], timeout: .seconds(60))
        return (result, destination)
    }

    /// Every regular file under `directory`, by path relative to it.
    func files(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var info = stat()
            if lstat("\(directory)/\(path)", &info) == 0, info.st_mode & S_IFMT != S_IFDIR { found.append(path) }
        }
        return found.sorted()
    }

    /// Whether any file under `directory` holds the secret's text.
    func holdsTheSecret(_ directory: String) -> Bool {
        files(under: directory).contains { path in
            (try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(path)")))?.range(of: Data(Self.secretText.utf8)) != nil
        }
    }

    /// Found: `cp -L` copied every file of the theme's directory through links: an unreferenced
    /// `notes.txt -> /etc/shadow` passed `splashd-kms check`, and the secret went into a 0644
    /// initrd. Now only the files the theme references go in, never through a link.
    @Test func onlyTheFilesTheThemeReferencesGoIn() throws {
        let directory = try theme("hostile", files: ["spare.png": "not referenced"], links: ["notes.txt": secret])
        // The theme itself passes the renderer's check (the links are not its files).
        let check = try ProcessRunner.run("\(Binaries.directory)/splashd-kms", ["check", "--theme", directory])
        #expect(check.status == 0, "\(check.stderr)")
        let (result, destination) = try runHook("SPLASH=yes\nTHEME='\(directory)'\nDRM_MODULES='splashd-test-none'\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(files(under: "\(destination)/usr/share/splashd/initramfs/theme") == ["logo.svg", "theme.toml"])
        #expect(!holdsTheSecret(destination), "\(files(under: destination))")
    }

    /// `splashd-kms check --files` names what the hook copies: theme.toml, the logo, the font
    /// file; and the hook copies those (the font file with them).
    @Test func theCheckNamesTheFilesTheThemeDrawsWith() throws {
        let font = try ProcessRunner.run("/usr/bin/fc-match", ["-f", "%{file}", "sans-serif:regular"]).stdout
        try #require(font.hasSuffix(".ttf"), "a TrueType sans-serif: \(font)")
        let directory = try theme("fonted")
        try "name = \"Hostile\"\nlogo = \"logo.svg\"\nfont = \"Splash Test\"\nfont_file = \"face.ttf\"\n"
            .write(toFile: "\(directory)/theme.toml", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: font, toPath: "\(directory)/face.ttf")
        let listed = try ProcessRunner.run("\(Binaries.directory)/splashd-kms", ["check", "--theme", directory, "--files"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "theme.toml\nlogo.svg\nface.ttf\n")
        let (result, destination) = try runHook("SPLASH=yes\nTHEME='\(directory)'\nDRM_MODULES='splashd-test-none'\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(files(under: "\(destination)/usr/share/splashd/initramfs/theme") == ["face.ttf", "logo.svg", "theme.toml"])
    }

    /// The fonts go in at the paths fontconfig gave them, and init-top gives the renderer their
    /// directories (`font-dirs`, one a line). Found: they went to a directory of the initramfs's
    /// own, gone once the renderer carried on in the real root, where pango then drew every face
    /// not opened before the switch (the error view's) as boxes (Tests/vm/test_kms_initramfs.py).
    @Test func theFontsGoInAtTheirOwnPaths() throws {
        let directory = try theme("plain-fonts")
        let (result, destination) = try runHook("SPLASH=yes\nTHEME='\(directory)'\nDRM_MODULES='splashd-test-none'\n")
        #expect(result.status == 0, "\(result.stderr)")
        let listed = try String(contentsOfFile: "\(destination)/usr/share/splashd/initramfs/font-dirs", encoding: .utf8)
        var folders: [String] = []
        for pattern in ["sans-serif:regular", "sans-serif:bold"] {
            let font = try ProcessRunner.run("/usr/bin/fc-match", ["-f", "%{file}", pattern]).stdout
            try #require(font.hasPrefix("/"), "\(pattern): \(font)")
            #expect(FileManager.default.contentsEqual(atPath: font, andPath: "\(destination)\(font)"), "\(font) at its own path")
            let folder = (font as NSString).deletingLastPathComponent
            if !folders.contains(folder) { folders.append(folder) }
        }
        #expect(listed == folders.map { $0 + "\n" }.joined(), "each directory once, a line each")
        // No configuration file for fontconfig: not the machine-wide one, which Plymouth's hook writes too.
        #expect(!FileManager.default.fileExists(atPath: "\(destination)/etc/fonts/fonts.conf"))
    }

    /// A theme whose referenced file is a link (out of the directory) is refused by the check,
    /// and nothing of it goes in.
    @Test func aThemeWhoseLogoIsALinkPutsNothingIn() throws {
        let directory = try theme("linked")
        try FileManager.default.removeItem(atPath: "\(directory)/logo.svg")
        try FileManager.default.createSymbolicLink(atPath: "\(directory)/logo.svg", withDestinationPath: secret)
        let (result, destination) = try runHook("SPLASH=yes\nTHEME='\(directory)'\nDRM_MODULES='splashd-test-none'\n")
        #expect(result.status == 0)
        #expect(result.stderr.contains("cannot be drawn"), "\(result.stderr)")
        #expect(files(under: destination).isEmpty)
    }

    /// Found: `OPTIONS='… $(touch X)'` was written back as `OPTIONS="…$(touch X)"`, and
    /// init-top, sourcing it, ran the `touch`. Now what init-top sources gives back the values as
    /// they were, and runs nothing.
    @Test func theValuesWrittenForInitTopRunNothing() throws {
        let directory = try theme("plain")
        let touched = [work.file("by-dollar"), work.file("by-backquote")]
        let options = #"--rotate 90 $(touch \#(touched[0])) `touch \#(touched[1])` "double" it's a \back $HOME"#
        let quoted = "'" + options.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        let (result, destination) = try runHook("SPLASH=yes\nTHEME='\(directory)'\nDRM_MODULES='splashd-test-none'\nOPTIONS=\(quoted)\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(touched.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "the hook ran nothing")
        // As init-top reads it: sourced by sh.
        let conf = "\(destination)/etc/splashd/initramfs.conf"
        let sourced = try ProcessRunner.run("/bin/sh", ["-c", #"DRM_MODULES="" OPTIONS=""; . "$1"; printf '%s\n%s' "$DRM_MODULES" "$OPTIONS""#, "sh", conf])
        #expect(sourced.status == 0, "\(sourced.stderr)")
        #expect(touched.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "sourcing ran nothing: \((try? String(contentsOfFile: conf, encoding: .utf8)) ?? "")")
        #expect(sourced.stdout == "splashd-test-none\n\(options)")
    }
}
