import Foundation
@testable import SplashSupport
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 48, item 6: someone who can write the directory plants the temporary an atomic write
/// will use, at the name it used to have (`.NAME.tmp-PID`): their own file, which the rename put
/// in place (root's `splashctl screenshot` left a file that user owned and could rewrite), or a
/// link. The write now makes its temporary new, under a name no one can guess.
@Suite struct AtomicFilePlantingTests {
    /// The name every build before issue 48 gave the temporary of `name` in this process.
    static func oldTemporary(_ name: String) -> String { ".\(name).tmp-\(getpid())" }

    static func inode(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    @Test func aFilePlantedAtTheOldTemporaryNameIsNotPutInPlace() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let planted = try directory.write(Self.oldTemporary("shot.png"), "planted")
        // As root: the planter is another user (nobody), as in the issue.
        let planter: uid_t = geteuid() == 0 ? 65534 : geteuid()
        if geteuid() == 0 { #expect(chown(planted, planter, 65534) == 0) }
        let before = try #require(Self.inode(planted))

        try AtomicFile.write(Array("picture".utf8), to: directory.file("shot.png"), mode: 0o644)

        let written = try #require(Self.inode(directory.file("shot.png")))
        #expect(written.st_ino != before.st_ino, "the planted file was put in place as shot.png")
        #expect(written.st_uid == geteuid(), "shot.png is owned by uid \(written.st_uid), the planter's")
        #expect(AtomicFile.read(directory.file("shot.png")) == Array("picture".utf8))
        // The planted file is left as it was, where it was.
        #expect(Self.inode(planted)?.st_ino == before.st_ino)
        #expect(Self.inode(planted)?.st_uid == planter)
        #expect(directory.read(Self.oldTemporary("shot.png")) == "planted")
    }

    @Test func aLinkPlantedAtTheOldTemporaryNameIsNotFollowedNorInTheWay() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let victim = try directory.write("victim", "keep me")
        let link = directory.file(Self.oldTemporary("history.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)

        try AtomicFile.write(Array("records\n".utf8), to: directory.file("history.jsonl"), mode: 0o600)

        #expect(directory.read("history.jsonl") == "records\n")
        #expect(directory.read("victim") == "keep me")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == victim)
        let written = try #require(Self.inode(directory.file("history.jsonl")))
        #expect(written.st_mode & S_IFMT == S_IFREG)
        #expect(written.st_mode & 0o777 == 0o600)
    }

    /// Whatever holds a name the write draws (a link, a file) is passed over and left alone;
    /// after 16 names taken the write gives up, and the old file stays.
    @Test func aTakenTemporaryNameIsPassedOverAndLeftAlone() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let path = directory.file("counter.json")
        _ = try directory.write("victim", "keep me")
        var draws = SplitMix64(state: 48)
        let first = AtomicFile.temporaryName(for: "counter.json", pid: getpid(), random: draws.next())
        let second = AtomicFile.temporaryName(for: "counter.json", pid: getpid(), random: draws.next())
        #expect(first.hasPrefix(".counter.json.tmp-\(getpid())-") && first.count == ".counter.json.tmp-\(getpid())-".count + 16)
        try FileManager.default.createSymbolicLink(atPath: directory.file(first), withDestinationPath: "victim")
        _ = try directory.write(second, "planted")

        var names = SplitMix64(state: 48)
        try AtomicFile.write(Array("1".utf8), to: path, mode: 0o644, names: &names)

        #expect(directory.read("counter.json") == "1")
        #expect(directory.read("victim") == "keep me")
        #expect(directory.read(second) == "planted")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["counter.json", first, second, "victim"].sorted())

        struct Same: RandomNumberGenerator { mutating func next() -> UInt64 { 0x2A } }
        _ = try directory.write(AtomicFile.temporaryName(for: "counter.json", pid: getpid(), random: 0x2A), "planted")
        var same = Same()
        #expect {
            try AtomicFile.write(Array("2".utf8), to: path, mode: 0o644, names: &same)
        } throws: { error in
            (error as? AtomicFile.WriteError)?.description == "cannot write \(path): open: \(String(cString: strerror(EEXIST)))"
        }
        #expect(directory.read("counter.json") == "1")
    }

    /// A temporary of the new form left by a crash is removed at the next start, as one of the
    /// old form (`.NAME.tmp-PID`, left by an earlier build) still is.
    @Test func temporariesOfBothFormsLeftByACrashAreRemoved() throws {
        let directory = try TemporaryDirectory(prefix: "splashd-atomic")
        defer { directory.remove() }
        let dead = try deadProcessID()
        let stale = [
            AtomicFile.temporaryName(for: "history.jsonl", pid: dead, random: 0xFEED_FACE_CAFE_BEEF),
            AtomicFile.temporaryName(for: "a-b.tmp-1", pid: dead, random: 1),
            ".session.json.tmp-\(dead)",
        ]
        let kept = [".x.tmp-\(dead)-12345", ".x.tmp-\(dead)-0123456789ABCDEF", ".x.tmp-0123456789abcdef", ".tmp-\(dead)-0123456789abcdef"]
        for name in stale + kept { _ = try directory.write(name, "half") }
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path) == stale.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == kept.sorted())
        #expect(AtomicFile.temporaryOwner(stale[1])?.name == "a-b.tmp-1")
        #expect(AtomicFile.temporaryOwner(stale[1])?.pid == dead)
        // Limited to named files: only theirs.
        for name in stale { _ = try directory.write(name, "half") }
        #expect(AtomicFile.removeStaleTemporaries(in: directory.path, names: ["history.jsonl"]) == [stale[0]])
    }
}
