import Foundation
import SplashCore
import SplashDaemon
import Testing
import TestSupport

/// `history.jsonl` on disk: one line appended per finished launch, the file replaced only when
/// it must be, and what a power cut or a damaged file leaves behind.
@Suite struct HistoryStoreTests {
    let directory: TemporaryDirectory
    let logs = LogCapture()

    init() throws { directory = try TemporaryDirectory(prefix: "splashd-history") }

    func store() -> HistoryStore { HistoryStore(stateDirectory: directory.path, logger: logs.logger()) }
    var path: String { directory.file("history.jsonl") }

    func record(_ launch: String, finishedAtMs: Int64 = 10) -> LaunchRecord {
        LaunchRecord(
            launch: launch, startedAtUnixMs: 1_714_555_800_000, graphFingerprint: "0123456789abcdef", minDisplayMs: 0,
            finishedAtMs: finishedAtMs,
            steps: [StepRecord(id: "a", plugin: "signal", attempts: [.init(attempt: 1, startMs: 0, endMs: 5, outcome: .succeeded)])]
        )
    }

    func lines() -> [String] { (directory.read("history.jsonl") ?? "").split(separator: "\n").map(String.init) }
    func launches() -> [String?] { lines().map { try? LaunchRecord(jsonLine: Array($0.utf8)).launch } }
    func inode() throws -> UInt64 { try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64) }

    @Test func eachLaunchAppendsOneLineUntilTheFileWouldPassTwiceTheCapacity() async throws {
        let store = store()
        #expect(await store.load().records.isEmpty)
        var log = HistoryLog(capacity: 3)
        log = log.appending(record("L1"))
        await store.save(log)
        let created = try inode()
        for number in 2...6 {
            log = log.appending(record("L\(number)"))
            await store.save(log)
            #expect(launches() == (1...number).map { "L\($0)" }, "appended, not rewritten")
            #expect(try inode() == created, "the same file")
        }
        // A seventh line would make the file hold more than twice the capacity: replaced by the
        // log's own three records.
        log = log.appending(record("L7"))
        await store.save(log)
        #expect(launches() == ["L5", "L6", "L7"])
        #expect(try inode() != created, "replaced atomically")
        #expect(await self.store().load().records == log.records)
        #expect(logs.records(atLeast: .warning).isEmpty)
    }

    @Test func aFreshStoreAppendsToTheFileItRead() async throws {
        var log = HistoryLog(capacity: 5).appending(record("L1")).appending(record("L2"))
        await store().save(log)
        let written = try inode()

        let restarted = store()
        #expect(await restarted.load().records == log.records)
        log = log.appending(record("L3"))
        await restarted.save(log)
        #expect(launches() == ["L1", "L2", "L3"])
        #expect(try inode() == written)
    }

    @Test func aTornLastLineIsSkippedAndTheNextSaveReplacesTheFile() async throws {
        var log = HistoryLog(capacity: 5).appending(record("L1")).appending(record("L2"))
        await store().save(log)
        // A power cut in the middle of appending the third launch's line.
        let third = String(decoding: record("L3").jsonLine(), as: UTF8.self)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(third.prefix(third.count / 2).utf8))
        try handle.close()

        let restarted = store()
        let loaded = await restarted.load()
        #expect(loaded.records.map(\.launch) == ["L1", "L2"])
        #expect(!logs.records(.warning, containing: "skipped 1 unreadable line").isEmpty)
        log = loaded.appending(record("L4"))
        await restarted.save(log)
        #expect(launches() == ["L1", "L2", "L4"], "no half line left, and none glued to the new one")
        #expect(directory.read("history.jsonl")?.hasSuffix("\n") == true)
    }

    @Test func aSnapshotThatSkippedRecordsAppendsEverythingAfterTheFilesNewest() async throws {
        let store = store()
        _ = await store.load()
        let older = HistoryLog(capacity: 5).appending(record("L1")).appending(record("L2"))
        let newer = older.appending(record("L3"))
        await store.save(older)
        await store.save(newer)
        #expect(launches() == ["L1", "L2", "L3"])
        await store.save(newer.appending(record("L4")).appending(record("L5")))
        #expect(launches() == ["L1", "L2", "L3", "L4", "L5"])
    }

    @Test func aLaunchSavedTwiceIsReadOnceWithItsLaterRecord() async throws {
        let store = store()
        _ = await store.load()
        let log = HistoryLog(capacity: 5).appending(record("L1"))
        await store.save(log)
        let updated = log.appending(record("L1", finishedAtMs: 99))
        await store.save(updated)
        #expect(lines().count == 2, "appended again")
        let loaded = await self.store().load()
        #expect(loaded.records.count == 1)
        #expect(loaded.last?.finishedAtMs == 99)
    }

    @Test func aFileThatCannotBeAppendedToIsReplaced() async throws {
        let store = store()
        _ = await store.load()
        let log = HistoryLog(capacity: 5).appending(record("L1"))
        await store.save(log)
        // Gone behind the daemon's back (an operator cleaning the state directory).
        try FileManager.default.removeItem(atPath: path)
        await store.save(log.appending(record("L2")))
        #expect(launches() == ["L1", "L2"])
        #expect(logs.records(atLeast: .error).isEmpty)
    }
}
