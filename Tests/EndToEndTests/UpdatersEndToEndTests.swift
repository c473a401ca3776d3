import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// The signing keys of the updaters' tests: a CA, a signing certificate it issued (no extended key
/// usage: RAUC checks `smimesign`, Debian's SWUpdate the same), and another CA's signer.
enum UpdateKeys {
    static func run(_ program: String, _ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:]) throws {
        let result = try ProcessRunner.run(program, arguments, environment: environment, timeout: .seconds(120))
        try #require(result.status == 0, "\(program) \(arguments.joined(separator: " ")): \(result.stderr)")
    }

    /// A CA, a signing certificate it issued (no extended key usage: RAUC checks `smimesign`),
    /// and another CA's signer for the broken bundle.
    static func make(in d: TemporaryDirectory) throws {
        for ca in ["ca", "other-ca"] {
            try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d.file("\(ca).key.pem"), "-out",
                                         d.file("\(ca).cert.pem"), "-days", "30", "-subj", "/O=splashd test/CN=\(ca)",
                                         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"], in: d)
        }
        _ = try d.write("ext.cnf", "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
        for (signer, ca) in [("signing", "ca"), ("other", "other-ca")] {
            try run("/usr/bin/openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", d.file("\(signer).key.pem"), "-out",
                                         d.file("\(signer).csr"), "-subj", "/O=splashd test/CN=\(signer)"], in: d)
            try run("/usr/bin/openssl", ["x509", "-req", "-in", d.file("\(signer).csr"), "-CA", d.file("\(ca).cert.pem"), "-CAkey",
                                         d.file("\(ca).key.pem"), "-CAcreateserial", "-out", d.file("\(signer).cert.pem"), "-days", "30",
                                         "-extfile", d.file("ext.cnf")], in: d)
        }
    }
}

/// Real RAUC (Debian 12's 1.8) installing real bundles into two file-backed slots, its service on a
/// private bus that splashd reads as its system bus: the update view follows RAUC's own progress,
/// and a bundle signed by another CA shows RAUC's error.
@MainActor @Suite final class RaucEndToEndTests {
    static let rauc = "/usr/bin/rauc"
    /// A launch held in `loading` (a signal step) that follows RAUC, its end view kept.
    static let config = TestConfig.instantSplash + """
        timeout = "10m"

        [update]
        rauc = true
        end_view = "10m"

        [[step]]
        id = "first-frame"
        plugin = "signal"
        """
    let directory: TemporaryDirectory
    let bus: PrivateBus
    let service = Process()
    var address: String { bus.address }

    /// A plain bundle of a 1 MiB image, signed by `signer`.
    static func makeBundle(_ name: String, signer: String, in d: TemporaryDirectory) throws -> String {
        let content = d.file("content-\(name)")
        try FileManager.default.createDirectory(atPath: content, withIntermediateDirectories: true)
        var image = [UInt8](repeating: 0, count: 1 << 20)
        var random = SplitMix64(state: 38)
        for index in image.indices { image[index] = UInt8(truncatingIfNeeded: random.next()) }
        try Data(image).write(to: URL(fileURLWithPath: content + "/rootfs.img"))
        try "[update]\ncompatible=splashd-test\nversion=1.0.0\n\n[bundle]\nformat=plain\n\n[image.rootfs]\nfilename=rootfs.img\n"
            .write(toFile: content + "/manifest.raucm", atomically: true, encoding: .utf8)
        let bundle = d.file("\(name).raucb")
        try UpdateKeys.run(rauc, ["bundle", "--cert=\(d.file("\(signer).cert.pem"))", "--key=\(d.file("\(signer).key.pem"))", content, bundle], in: d)
        return bundle
    }

    init() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.rauc), "needs rauc (scripts/setup.sh tests installs it)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/mksquashfs"), "needs squashfs-tools (scripts/setup.sh tests installs it)")
        try #require(getuid() == 0, "RAUC mounts the bundle: root")
        directory = try TemporaryDirectory()
        let d = directory
        try UpdateKeys.make(in: d)
        for slot in ["slot-a.img", "slot-b.img"] {
            _ = FileManager.default.createFile(atPath: d.file(slot), contents: Data(count: 2 << 20))
        }
        for sub in ["data", "mnt"] { try FileManager.default.createDirectory(atPath: d.file(sub), withIntermediateDirectories: true) }
        _ = try d.write("system.conf", """
            [system]
            compatible=splashd-test
            bootloader=noop
            data-directory=\(d.file("data"))

            [keyring]
            path=\(d.file("ca.cert.pem"))

            [slot.rootfs.0]
            device=\(d.file("slot-a.img"))
            type=raw
            bootname=A

            [slot.rootfs.1]
            device=\(d.file("slot-b.img"))
            type=raw
            bootname=B

            """)
        bus = try PrivateBus(in: d)
        service.executableURL = URL(fileURLWithPath: Self.rauc)
        service.arguments = ["--conf=\(d.file("system.conf"))", "--mount=\(d.file("mnt"))", "service", "--override-boot-slot=A"]
        service.environment = ProcessInfo.processInfo.environment.merging(busEnvironment) { _, new in new }
        service.standardOutput = FileHandle.nullDevice
        service.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try service.run()
    }

    deinit {
        if service.isRunning {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        bus.close()
    }

    /// RAUC's service and client both on the private bus.
    var busEnvironment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address, "DBUS_STARTER_BUS_TYPE": "session"] }

    /// Whether RAUC's service owns its name on the bus.
    func raucIsOnTheBus() throws -> Bool {
        let answer = try ProcessRunner.run("/usr/bin/dbus-send", ["--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/",
                                                                 "org.freedesktop.DBus.NameHasOwner", "string:de.pengutronix.rauc"])
        return answer.stdout.contains("boolean true")
    }

    /// Runs `rauc install` in the background; its exit status when it ends.
    func install(_ bundle: String) throws -> Process {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: Self.rauc)
        client.arguments = ["install", bundle]
        client.environment = ProcessInfo.processInfo.environment.merging(busEnvironment) { _, new in new }
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.run()
        return client
    }

    @Test func theUpdateViewFollowsRAUCsRealProgressAndItsError() async throws {
        let d = directory
        let good = try Self.makeBundle("good", signer: "signing", in: d)
        let bad = try Self.makeBundle("bad", signer: "other", in: d)
        #expect(await waitUntil { (try? self.raucIsOnTheBus()) == true }, "RAUC's service on the bus")
        let daemon = try DaemonProcess(config: Self.config, environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        #expect(daemon.waitForLog("following RAUC's installer"))
        let renderer = try daemon.connect()
        // A second subscriber, without ticks, as the system tests' and a slow renderer's: it
        // reads its states after both installs. It must have been sent the first one's end.
        let quiet = try RawSocketClient(path: daemon.socketPath)
        try quiet.write(Array(#"{"cmd":"subscribe","ticks":false}"#.utf8) + [0x0A])
        var seen: [UpdateStatus] = []
        func follow(until done: @escaping (UpdateStatus) -> Bool) throws -> StateMessage {
            try renderer.follow(timeout: .seconds(120) * waitScale) { state, _ in
                guard let update = state.update else { return true }
                if seen.last != update { seen.append(update) }
                return !done(update)
            }
        }
        let client = try install(good)
        let done = try follow { $0.result != .running }
        client.waitUntilExit()
        #expect(client.terminationStatus == 0, "rauc install succeeded")
        #expect(done.mode == .update && done.update?.result == .succeeded && done.update?.progress == 1, "\(seen)")
        let progress = seen.map(\.progress)
        #expect(progress == progress.sorted(), "RAUC's progress rises, never backwards: \(progress)")
        // Every step RAUC reported is in the journal, in RAUC's order; the states carried some
        // of them (a renderer draws one a frame), each one of RAUC's, in that order.
        let steps = [
            "0% Installing", "0% Determining slot states", "20% Determining slot states done.", "20% Checking bundle",
            "20% Verifying signature", "40% Verifying signature done.", "40% Checking bundle done.", "40% Checking manifest contents",
            "60% Checking manifest contents done.", "60% Determining target install group", "80% Determining target install group done.",
            "80% Updating slots", "80% Checking slot rootfs.1", "90% Checking slot rootfs.1 done.", "90% Copying image to rootfs.1",
            "99% Copying image to rootfs.1 done.", "99% Updating slots done.", "100% Installing done.",
        ]
        let logged = daemon.logLines(containing: "RAUC: ").compactMap { line in line.range(of: "RAUC: ").map { String(line[$0.upperBound...]) } }
        #expect(Array(logged.prefix(steps.count)) == steps, "\(logged)")
        let shown = seen.compactMap { update in update.message.map { "\(Int((update.progress * 100).rounded()))% \($0)" } }
        var position = 0
        for step in shown {
            guard let found = steps[position...].firstIndex(of: step) else {
                Issue.record("\(step) is not one of RAUC's steps after \(steps[max(0, position - 1)]): \(shown)")
                break
            }
            position = found
        }
        #expect(shown.last == "100% Installing done.")
        #expect(seen.allSatisfy { $0.source == .rauc })
        print("RAUC's states, in order:", seen.map { "\(Int(($0.progress * 100).rounded()))% \($0.message ?? "")" })
        #expect(daemon.waitForLog("the update succeeded after"))
        // The slot holds the image.
        let slot = try Data(contentsOf: URL(fileURLWithPath: d.file("slot-b.img")))
        let image = try Data(contentsOf: URL(fileURLWithPath: d.file("content-good/rootfs.img")))
        #expect(slot.prefix(image.count) == image)

        // A bundle signed by another CA: RAUC's error, no buttons.
        seen = []
        let refused = try install(bad)
        let failed = try follow { $0.result == .failed }
        refused.waitUntilExit()
        #expect(refused.terminationStatus != 0)
        #expect(failed.update?.error?.hasPrefix("signature verification failed") == true, "\(String(describing: failed.update))")
        #expect(daemon.waitForLog("the update failed after"))
        var quietResults: [String] = []
        while !quietResults.contains("failed"), let line = quiet.readLine(timeout: .seconds(60) * waitScale) {
            guard case .state(let state)? = ServerMessage.decode(line), let update = state.update else { continue }
            if quietResults.last != update.result.rawValue { quietResults.append(update.result.rawValue) }
        }
        // (The second install's running states may all be coalesced into its quick failure.)
        #expect(quietResults.filter { $0 != "running" } == ["succeeded", "failed"], "each install's end reached the quiet subscriber: \(quietResults)")
        #expect(daemon.stop() == 0)
    }
}

/// Real SWUpdate (Debian 12's 2022.12) installing a signed image into a file with its raw handler,
/// and its own `swupdate-progress -p` writing psplash's FIFO, which splashd reads.
@MainActor @Suite struct SWUpdateEndToEndTests {
    @Test func swupdateProgressDrivesTheUpdateViewThroughPsplashsFIFO() async throws {
        for tool in ["/usr/bin/swupdate", "/usr/bin/swupdate-progress", "/usr/bin/cpio"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "needs \(tool) (scripts/setup.sh tests installs swupdate and cpio)")
        }
        let d = try TemporaryDirectory()
        try UpdateKeys.make(in: d)
        let content = d.file("content")
        try FileManager.default.createDirectory(atPath: content, withIntermediateDirectories: true)
        var image = [UInt8](repeating: 0, count: 3 << 20)
        var random = SplitMix64(state: 15)
        for index in image.indices { image[index] = UInt8(truncatingIfNeeded: random.next()) }
        try Data(image).write(to: URL(fileURLWithPath: content + "/rootfs.img"))
        let target = d.file("slot-a.img")
        _ = FileManager.default.createFile(atPath: target, contents: Data(count: 4 << 20))
        let sum = try ProcessRunner.run("/usr/bin/sha256sum", [content + "/rootfs.img"])
        let sha = String(sum.stdout.prefix(64))
        try #"""
            software = { version = "1.0.0"; hardware-compatibility = [ "1.0" ];
              images: ( { filename = "rootfs.img"; device = "\#(target)"; type = "raw"; sha256 = "\#(sha)"; } ); }
            """#.write(toFile: content + "/sw-description", atomically: true, encoding: .utf8)
        try UpdateKeys.run("/usr/bin/openssl", ["cms", "-sign", "-in", content + "/sw-description", "-out", content + "/sw-description.sig",
                                                "-signer", d.file("signing.cert.pem"), "-inkey", d.file("signing.key.pem"), "-outform", "DER",
                                                "-nosmimecap", "-binary"], in: d)
        // The order matters: sw-description first, then its signature.
        try UpdateKeys.run("/bin/sh", ["-c", "cd '\(content)' && printf 'sw-description\\nsw-description.sig\\nrootfs.img\\n' | cpio -o -H crc > '\(d.file("update.swu"))'"], in: d)
        // Without cpio's padding after the trailer: SWUpdate stops reading at the trailer and
        // closes, and swupdate-client, still writing the padding, then failed with EPIPE
        // ("swupdate_image_write failed: Broken pipe") though the update had succeeded (once in
        // four runs of the suite beside a CPU hog).
        let archive = try Data(contentsOf: URL(fileURLWithPath: d.file("update.swu")))
        let trailer = try #require(archive.lastRange(of: Data("TRAILER!!!\0".utf8)), "cpio wrote a trailer")
        let archiveEnd = (trailer.upperBound + 3) / 4 * 4  // a newc entry's name is padded to 4 bytes
        try archive.prefix(archiveEnd).write(to: URL(fileURLWithPath: d.file("update.swu")))
        let run = d.file("run")
        let scratch = d.file("tmp")
        for directory in [run, scratch] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let daemon = try DaemonProcess(config: UpdateModeEndToEndTests.config(), environment: ["PSPLASH_FIFO_DIR": run])
        #expect(daemon.waitForLog("reading psplash's FIFO"))
        let renderer = try daemon.connect()
        let environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch, "PSPLASH_FIFO_DIR": run]) { _, new in new }
        // Everything this test starts, and what swupdate leaves running (its forked helper outlives
        // it): the processes whose command line names this test's directory.
        defer {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")) else { continue }
                if String(decoding: line, as: UTF8.self).contains(d.path) { kill(pid, SIGKILL) }
            }
        }
        func start(_ tool: String, _ arguments: [String], output: FileHandle? = nil) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = output ?? FileHandle.nullDevice
            process.standardError = output ?? FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return process
        }
        // SWUpdate as the daemon it is on a device, waiting for an image; swupdate-progress connected
        // to it before the image is sent. (With `swupdate -i` the install races swupdate-progress's
        // connection: on a busy machine it saw only the end.)
        _ = FileManager.default.createFile(atPath: d.file("swupdate.log"), contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: d.file("swupdate.log")))
        _ = try start("/usr/bin/swupdate", ["-v", "-k", d.file("ca.cert.pem"), "-H", "kiosk:1.0"], output: log)
        let progressSocket = scratch + "/swupdateprog"
        // Two programs starting and connecting, while the rest of the suite runs beside them: the
        // bound is the follow's, there to end a hang (10 s was not enough on a busy CI machine).
        let startBound: Duration = .seconds(120)
        #expect(await waitUntil(timeout: startBound) { FileManager.default.fileExists(atPath: progressSocket) }, "swupdate made \(progressSocket)")
        let started = ContinuousClock.now
        _ = try start("/usr/bin/swupdate-progress", ["-p", "-w", "-s", progressSocket])
        // Connected: the listening socket and the one it accepted both carry the path.
        func unixSockets(at path: String) -> [Substring] {
            let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
            return table.split(separator: "\n").filter { $0.hasSuffix(" " + path) }
        }
        #expect(await waitUntil(timeout: startBound) { unixSockets(at: progressSocket).count >= 2 },
                "swupdate-progress connected: \(unixSockets(at: progressSocket))")
        print("swupdate-progress connected after", started.duration(to: .now))
        // And SWUpdate listening on its control socket, which another of its threads makes: on a
        // busy machine swupdate-client once found none there yet, and failed.
        let controlSocket = scratch + "/sockinstctrl"
        #expect(await waitUntil(timeout: startBound) { unixSockets(at: controlSocket).contains { $0.split(separator: " ")[3] == "00010000" } },
                "swupdate listens on \(controlSocket): \(unixSockets(at: controlSocket))")
        let client = try start("/usr/bin/swupdate-client", ["-q", d.file("update.swu")], output: log)
        var seen: [UpdateStatus] = []
        // Until SWUpdate's QUIT (5 s after its "MSG SUCCESS") ends the view.
        let end = try renderer.follow(timeout: .seconds(120) * waitScale) { state, _ in
            if let update = state.update, seen.last != update { seen.append(update) }
            return !(state.mode == .launch && !seen.isEmpty)
        }
        #expect(await waitUntil(timeout: startBound) { !client.isRunning })
        #expect(client.terminationStatus == 0, "swupdate-client's exit")
        // SWUpdate's own word.
        let said = (try? String(contentsOfFile: d.file("swupdate.log"), encoding: .utf8)) ?? ""
        #expect(said.contains("SWUpdate was successful !"), "\(said.suffix(2000))")
        #expect(end.update == nil)
        #expect(seen.contains { $0.message == "step 1 of 1" }, "\(seen)")
        #expect(seen.contains { $0.message == "SUCCESS" }, "\(seen)")
        #expect(seen.allSatisfy { $0.source == .psplash && $0.result == .running })
        print("SWUpdate's states, in order:", seen.map { "\(Int(($0.progress * 100).rounded()))% \($0.message ?? "")" })
        let written = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(written.prefix(image.count) == Data(image), "the raw handler wrote the image")
        #expect(daemon.waitForLog("the update's writer said QUIT"))
        #expect(daemon.stop() == 0)
    }
}
