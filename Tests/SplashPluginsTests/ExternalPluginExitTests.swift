import SplashCore
import SplashPlugins
import Testing

@Suite("ExternalPlugin: exit status", .timeLimit(.minutes(10)))
struct ExternalPluginExitTests {
    /// Runs a script with `body` and returns the `StepFailure` it threw (nil if it threw none).
    private func failure(_ body: String) async throws -> StepFailure? {
        let fixture = try PluginFixture()
        let path = try fixture.script("exit.sh", "#!/bin/sh\n" + body)
        do {
            _ = try await fixture.plugin(path, name: "exiter").run(fixture.context())
            return nil
        } catch let failure as StepFailure {
            return failure
        }
    }

    @Test func exitZeroSucceedsWithFacts() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("ok.sh", "#!/bin/sh\necho '{\"facts\":{\"a\":\"b\"}}'\nexit 0\n")
        #expect(try await fixture.plugin(path).run(fixture.context()) == ["a": .string("b")])
    }

    @Test func exit75IsRetryable() async throws {
        let failure = try #require(try await failure("echo 'server busy' >&2\nexit 75\n"))
        #expect(failure.retryable)
        #expect(failure.code == .pluginTemporaryFailure)
        #expect(failure.message.contains("75"))
        #expect(failure.message.contains("server busy"))
    }

    @Test func otherExitCodeFailsForGoodWithLastStderrLine() async throws {
        let failure = try #require(try await failure("echo 'first' >&2\necho 'no such user' >&2\necho '' >&2\nexit 3\n"))
        #expect(!failure.retryable)
        #expect(failure.code == .pluginExited)
        #expect(failure.message.contains("exited with code 3"))
        #expect(failure.message.hasSuffix(": no such user"))
    }

    @Test func killedBySignalFailsForGood() async throws {
        let failure = try #require(try await failure("kill -KILL $$\n"))
        #expect(!failure.retryable)
        #expect(failure.code == .pluginSignaled)
        #expect(failure.message.contains("signal 9 (SIGKILL)"))
    }

    @Test func missingExecutableCannotStart() async throws {
        let fixture = try PluginFixture()
        let plugin = fixture.plugin(fixture.path("does-not-exist.sh"), name: "ghost")
        let error = await #expect(throws: StepFailure.self) { try await plugin.run(fixture.context()) }
        #expect(error?.retryable == false)
        #expect(error?.code == .pluginNotStartable)
        #expect(error?.message.contains("not found") == true)
        #expect(error?.message.contains("does-not-exist.sh") == true)
    }

    @Test func nonExecutableFileCannotStart() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("plain.sh", "#!/bin/sh\nexit 0\n", executable: false)
        let error = await #expect(throws: StepFailure.self) { try await fixture.plugin(path).run(fixture.context()) }
        #expect(error?.retryable == false)
        #expect(error?.code == .pluginNotStartable)
        #expect(error?.message.contains("not an executable file") == true)
    }

    @Test func badInterpreterCannotStart() async throws {
        let fixture = try PluginFixture()
        let path = try fixture.script("bad.sh", "#!/nonexistent/interpreter\nexit 0\n")
        let error = await #expect(throws: StepFailure.self) { try await fixture.plugin(path).run(fixture.context()) }
        #expect(error?.retryable == false)
        #expect(error?.code == .pluginNotStartable)
    }
}
