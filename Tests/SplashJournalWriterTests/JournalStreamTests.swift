import Foundation
import SplashJournalWriter
import Testing
import TestSupport

/// `JOURNAL_STREAM` names the stream only when it equals fstat's device and inode.
@Suite struct JournalStreamTests {
    @Test func matchesTheDeviceAndInodeOfTheDescriptor() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("stream", "")
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var info = stat()
        try #require(stat(path, &info) == 0)
        let value = "\(info.st_dev):\(info.st_ino)"

        #expect(JournalStream.matches(value, fileDescriptor: descriptor))
        #expect(!JournalStream.matches("\(info.st_dev):\(info.st_ino + 1)", fileDescriptor: descriptor))
        #expect(!JournalStream.matches("\(info.st_dev + 1):\(info.st_ino)", fileDescriptor: descriptor))
    }

    @Test func anotherFileDoesNotMatch() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let first = try dir.write("first", "")
        let second = try dir.write("second", "")
        let descriptor = open(second, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var info = stat()
        try #require(stat(first, &info) == 0)
        #expect(!JournalStream.matches("\(info.st_dev):\(info.st_ino)", fileDescriptor: descriptor))
    }

    @Test(arguments: [nil, "", "12", "12:", ":34", "a:b", "1:2:3", "-1:5", " 1:2"])
    func malformedValuesNeverMatch(value: String?) throws {
        #expect(!JournalStream.matches(value, fileDescriptor: 0))
    }

    @Test func aClosedDescriptorNeverMatches() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = try dir.write("gone", "")
        var info = stat()
        try #require(stat(path, &info) == 0)
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        close(descriptor)
        #expect(!JournalStream.matches("\(info.st_dev):\(info.st_ino)", fileDescriptor: descriptor))
    }

    @Test func stderrIsTheJournalOnlyWhenTheVariableNamesIt() throws {
        var info = stat()
        try #require(fstat(2, &info) == 0)
        #expect(JournalStream.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!JournalStream.stderrIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino &+ 1)"]))
        #expect(!JournalStream.stderrIsJournal(environment: [:]))
    }
}
