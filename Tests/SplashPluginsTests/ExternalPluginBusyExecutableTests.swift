import Foundation
import Glibc
import SplashCore
import SplashPlugins
import Testing

/// `execve` of a file that some process holds open for writing fails with `ETXTBSY`. That is
/// the case while an operator copies a plugin into place, and for an instant whenever another
/// thread of a busy process forks while the file is still open (the test runner: the flaky
/// "Text file busy" failures of the suite). A plugin is started again once it is free.
@Suite("ExternalPlugin: an executable still open for writing", .timeLimit(.minutes(10)))
struct ExternalPluginBusyExecutableTests {
    @Test func startsOnceTheWriterHasClosedIt() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("busy.sh", "#!/bin/sh\necho '{\"facts\":{\"ran\":\"yes\"}}'\n")
        let writer = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(writer >= 0)
        // Closed once the first start has failed (the plugin logs it), by a thread of its own:
        // the concurrency pool can be kept busy by other tests for longer than the plugin waits.
        let log = fixture.log
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + .seconds(30)
            while !log.records.contains(where: { $0.message.contains("open for writing (ETXTBSY)") }),
                ContinuousClock.now < deadline {
                usleep(1_000)
            }
            close(writer)
        }
        do {
            // A long wait: this test is about starting once the writer is gone, not about when.
            let facts = try await fixture.plugin(path, busyExecutableWait: .seconds(30)).run(fixture.context())
            #expect(facts == ["ran": .string("yes")])
        } catch {
            Issue.record("\(error); open by: \(Self.holders(of: path))")
        }
    }

    @Test func failsWithAClearMessageWhenItStaysBusy() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("busy.sh", "#!/bin/sh\nexit 0\n")
        let writer = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(writer >= 0)
        defer { close(writer) }
        let wait: Duration = .milliseconds(300)
        let start = ContinuousClock.now
        do {
            _ = try await fixture.plugin(path, busyExecutableWait: wait).run(fixture.context())
            Issue.record("a plugin whose executable stays open for writing started")
        } catch let failure as StepFailure {
            #expect(failure.code == .pluginNotStartable)
            #expect(!failure.retryable)
            #expect(failure.message.contains("open for writing"), "\(failure.message)")
        }
        #expect(ContinuousClock.now - start >= wait, "it waited for the writer")
    }

    /// The processes that have `path` open, for a failure's message.
    static func holders(of path: String) -> [String] {
        var found: [String] = []
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(pid) != nil {
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) == path {
                    let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "?"
                    let flags = (try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8)) ?? ""
                    found.append("\(pid) fd \(fd) \(command.replacingOccurrences(of: "\0", with: " ")) \(flags.split(separator: "\n").dropFirst().first ?? "")")
                }
            }
        }
        return found
    }
}
