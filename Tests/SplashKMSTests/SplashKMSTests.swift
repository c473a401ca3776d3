import Foundation
import Glibc
import SplashDraw
@testable import SplashKMS
import Testing
import TestSupport
import SplashScene
import SplashTheme

/// The display lock the hand-off unit waits on, and the turn a panel's orientation asks for;
/// the rest of SplashKMS needs a display (Tests/vm).
@Suite struct DisplayLockTests {
    @Test func aWaiterWaitsUntilTheRendererLetsTheDisplayGo() async throws {
        let directory = try TemporaryDirectory(prefix: "splashd-lock")
        defer { directory.remove() }
        let path = directory.file("display.lock")
        let lock = try DisplayLock(path: path)
        #expect(access(path, F_OK) == 0)
        // The waiter blocks in flock(2) on a thread of its own; the test lets the lock go only
        // once it has seen the waiter hold its descriptor (the file is open twice).
        let waiter = Task.detached { try DisplayLock.waitUntilFree(path) }
        let deadline = ContinuousClock.now + .seconds(10)
        while try openCount(path) < 2, ContinuousClock.now < deadline { await Task.yield() }
        try #require(try openCount(path) == 2, "the waiter opened the lock")
        lock.release()
        try await waiter.value
        #expect(access(path, F_OK) != 0, "the file is removed: a later waiter does not wait")
        try DisplayLock.waitUntilFree(path)  // returns at once: no file
    }

    /// Issue 48: the lock's other name was `PATH.PID`, and whatever held it was removed first.
    /// It is unpredictable now: a file planted at the old name is neither removed nor used.
    @Test func aFilePlantedAtTheOldOtherNameIsLeftAlone() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-lock")
        defer { directory.remove() }
        let path = directory.file("display.lock")
        let planted = try directory.write("display.lock.\(getpid())", "planted")
        let lock = try DisplayLock(path: path)
        defer { lock.release() }
        #expect(directory.read("display.lock.\(getpid())") == "planted", "\(planted) was removed or written")
        #expect(directory.read("display.lock") == "")
    }

    /// A FIFO where the lock should be blocked `splashd-kms wait` in open(2) for ever; it and
    /// anything else that is not a regular file are refused at once.
    @Test func whatIsNotARegularFileIsRefusedNotWaitedOn() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-lock")
        defer { directory.remove() }
        let fifo = directory.file("fifo.lock")
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(throws: KMSError.self) { try DisplayLock.waitUntilFree(fifo) }
        #expect(throws: KMSError.self) { try DisplayLock.waitUntilFree(directory.path) }
        try #require(symlink(fifo, directory.file("link.lock")) == 0)
        #expect(throws: KMSError.self) { try DisplayLock.waitUntilFree(directory.file("link.lock")) }
    }

    /// A relative device name with no slash is in the working directory, not in `/`.
    @Test func aRelativeNameIsWatchedInTheWorkingDirectory() {
        #expect(DeviceWait.parent(of: "card0") == ".")
        #expect(DeviceWait.parent(of: "/dev/dri/card0") == "/dev/dri")
        #expect(DeviceWait.parent(of: "/card0") == "/")
        #expect(DeviceWait.parent(of: "dri/card0") == "dri")
    }

    /// Whether any of the watch's descriptors is ready now (a poll that does not wait).
    func wakes(_ watch: PathWatch) -> Bool {
        var fds = watch.descriptors.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        return poll(&fds, nfds_t(fds.count), 0) > 0
    }

    /// A wait that wakes for another name in the watched directory looks again and sleeps on: it
    /// does not wake itself. (Armed anew at each look, the watch's removal queued IN_IGNORED on
    /// its own descriptor: the renderer's loop woke at once, for ever, and spun a core while it
    /// waited for the device: from early in boot, since /dev is busy then.)
    @Test func aWatchThatFindsNothingSleepsOnAndSeesThePathCome() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-watch")
        defer { directory.remove() }
        let watch = try PathWatch(directory.file("dri/card0"))
        #expect(try !watch.exists())
        #expect(!wakes(watch))
        // Another node in the directory watched: one wake, then none.
        try #require(mkdir(directory.file("other"), 0o755) == 0)
        #expect(wakes(watch))
        #expect(try !watch.exists())
        #expect(!wakes(watch), "no wake of its own")
        // The way made, then the path: each wakes the wait, and the path is seen.
        try #require(mkdir(directory.file("dri"), 0o755) == 0)
        #expect(wakes(watch))
        #expect(try !watch.exists())
        #expect(!wakes(watch), "no wake of its own once it watches deeper")
        let made = open(directory.file("dri/card0"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(made >= 0)
        close(made)
        #expect(wakes(watch))
        #expect(try watch.exists())
    }

    /// The directory watched removed and made again (a driver unbound, then bound): the new one
    /// is watched.
    @Test func aWatchedDirectoryMadeAgainIsWatchedAgain() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-watch")
        defer { directory.remove() }
        try #require(mkdir(directory.file("dri"), 0o755) == 0)
        let watch = try PathWatch(directory.file("dri/card0"))
        #expect(try !watch.exists())
        try #require(rmdir(directory.file("dri")) == 0 && mkdir(directory.file("dri"), 0o755) == 0)
        #expect(wakes(watch))
        #expect(try !watch.exists())
        let made = open(directory.file("dri/card0"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(made >= 0)
        close(made)
        #expect(wakes(watch))
        #expect(try watch.exists())
    }

    /// How many descriptors of this process have the file open (/proc/self/fd).
    func openCount(_ path: String) throws -> Int {
        var count = 0
        guard let dir = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(dir) }
        var target = [CChar](repeating: 0, count: 4096)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let n = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
            guard n > 0 else { continue }
            if String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path { count += 1 }
        }
        return count
    }

    @Test func aLinkOrAFileLeftAtItsTemporaryNameIsNeitherFollowedNorTruncated() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-lock")
        defer { directory.remove() }
        let victim = try directory.write("victim", "keep me")
        let path = directory.file("display.lock")
        #expect(symlink(victim, "\(path).\(getpid())") == 0)
        let lock = try DisplayLock(path: path)
        #expect(directory.read("victim") == "keep me")
        var info = stat()
        #expect(lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "the lock is a file of its own")
        lock.release()
    }

    @Test func aPanelsOrientationIsTheTurnThatShowsThePictureUpright() {
        #expect(DRMDevice.rotation(forPanelOrientation: "Normal") == SplashRotation.none)
        #expect(DRMDevice.rotation(forPanelOrientation: "Upside Down") == .half)
        #expect(DRMDevice.rotation(forPanelOrientation: "Left Side Up") == .threeQuarters)
        #expect(DRMDevice.rotation(forPanelOrientation: "Right Side Up") == .quarter)
        #expect(DRMDevice.rotation(forPanelOrientation: "Sideways") == nil)
    }
}

/// The painter turns as SplashScene's `SplashRotation` maps.
@Suite struct RotationDrawingTests {
    /// The drawing turns as `buffer(x:y:)` says: the reference logo's white circle, 55 px left and
    /// right of its centre in the upright layout, is white where the mapping puts it.
    @Test(arguments: SplashRotation.allCases)
    func theDrawingTurnsAsTheMappingSays(rotation: SplashRotation) throws {
        let directory = Binaries.packageRoot + "/renderer/themes/reference"
        let painter = try SplashPainter(ThemeLoader.load(directory: directory), directory: directory)
        let image = SplashImage(width: 640, height: 400)
        painter.draw(SplashView(), at: .init(sinceShown: 5000), into: image, rotation: rotation)
        let upright = rotation.upright(width: 640, height: 400)
        let cx = upright.width / 2, cy = upright.height / 2 - 40
        for (x, y) in [(cx - 55, cy), (cx + 55, cy), (cx, cy - 55)] {
            let p = rotation.buffer(x: x, y: y, width: 640, height: 400)
            let pixel = image.pixel(x: Int(p.x), y: Int(p.y))
            #expect(pixel.r > 240 && pixel.g > 240 && pixel.b > 240, "upright (\(x), \(y)) at \(p) on the buffer turned \(rotation.rawValue)°")
        }
        let corner = rotation.buffer(x: 1, y: 1, width: 640, height: 400)
        #expect(image.pixel(x: Int(corner.x), y: Int(corner.y)).r < 40, "the background at the upright corner")
    }
}

/// A theme file as the first-frame index records it (stat(2)).
@Suite struct FirstFrameSourceTests {
    @Test func aSourceIsTheFileAsItIsNowOrNothing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("theme.toml", "name = \"X\"\n")
        let source = try #require(FirstFrameIndex.Source(stating: path))
        #expect(source.path == path && source.size == 11)
        let seconds = try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date).timeIntervalSince1970
        #expect(abs(Double(source.modified) / 1e9 - seconds) < 0.001, "the modification time in nanoseconds")
        #expect(FirstFrameIndex.Source(stating: dir.file("absent.toml")) == nil)
    }
}
