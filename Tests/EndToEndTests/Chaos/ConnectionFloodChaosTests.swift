import Foundation
import SplashClient
import SplashCore
import SplashProtocol
import Testing
import TestSupport

/// Issue 12: anyone who could connect could exhaust the daemon's descriptors. At its file limit
/// with idle connections it spun a full core, new clients never got `hello`, and a plugin then
/// failed with "Too many open files", sending the launch to `error`.
@MainActor @Suite struct ConnectionFloodChaosTests {
    /// A step that runs a real plugin process, which opens descriptors of its own.
    static func plugins(in directory: TemporaryDirectory) throws -> ScriptPlugins {
        let plugins = try ScriptPlugins(in: directory)
        try plugins.add("opener", """
            exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null
            echo '{"progress":0.5}'
            echo '{"facts":{"opened":true}}'
            """)
        return plugins
    }

    /// The daemon on this suite's config and plugins, its socket in a fresh directory.
    static func start(maxClients: Int?, launcher: [String] = []) throws -> (directory: TemporaryDirectory, daemon: DaemonProcess, socketPath: String) {
        let directory = try TemporaryDirectory()
        let socketPath = directory.file("splashd.sock")
        let daemon = try DaemonProcess(
            config: config(socketPath: socketPath, maxClients: maxClients), pluginDirectories: [try plugins(in: directory).directory],
            socketPath: socketPath, launcher: launcher
        )
        return (directory, daemon, socketPath)
    }

    static func config(socketPath: String, maxClients: Int?) -> String {
        TestConfig.splash(exitAnimation: "10ms") + """
        [socket]
        path = "\(socketPath)"
        \(maxClients.map { "max_clients = \($0)" } ?? "")

        [[step]]
        id = "work"
        plugin = "opener"
        """
    }

    /// A new client, or the error it got instead of `hello`.
    nonisolated static func connect(_ path: String) -> Result<SplashConnection, ClientError> {
        do {
            return .success(try SplashConnection(path: path, timeout: .seconds(5)))
        } catch {
            return .failure(error)
        }
    }

    /// A client that got `hello`, trying until one does (room is made asynchronously), or nil.
    nonisolated static func connectOnceServed(_ path: String) async -> SplashConnection? {
        var served: SplashConnection?
        _ = await waitUntil {
            if case .success(let client) = connect(path) { served = client }
            return served != nil
        }
        return served
    }

    /// The daemon's user and system CPU time so far, in clock ticks (`/proc/PID/stat`).
    static func cpuTicks(_ pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// Runs a new launch through `client` (after the launch `previous` finished) and returns
    /// the new launch's `finished` state.
    static func relaunch(_ client: SplashConnection, after previous: String) throws -> StateMessage {
        guard case .ok = try client.request(.relaunch) else {
            Issue.record("relaunch refused")
            return try client.follow(timeout: .seconds(1)) { _, _ in false }
        }
        return try client.follow(timeout: .seconds(30)) { state, _ in
            state.launch == previous || state.phase != .finished
        }
    }

    @Test func aFloodAtTheDescriptorLimitIsAnsweredBusyAndALaunchStillRuns() async throws {
        // A hard and soft limit of 128 descriptors, which the daemon cannot raise.
        let (directory, daemon, socketPath) = try Self.start(maxClients: nil, launcher: ["/bin/sh", "-c", #"ulimit -n 128 && exec "$0" "$@""#])
        defer { directory.remove() }
        let first = try daemon.connect()
        let firstLaunch = try first.follow(timeout: .seconds(30)) { state, _ in state.phase != .finished }
        #expect(try first.request(.ping) == .ok(id: 2))

        // More connections than the daemon has descriptors, all idle.
        var admitted: [SplashConnection] = [first]
        var busy = 0
        flood: for attempt in 0..<160 {
            switch Self.connect(socketPath) {
            case .success(let client): admitted.append(client)
            case .failure(.rejected(let error)) where error.code == .busy: busy += 1
            case .failure(let error):
                Issue.record("connection \(attempt) got neither hello nor busy: \(error)")
                break flood
            }
        }
        let capacityLine = daemon.logLines(containing: "serving at most").first
        let capacity = capacityLine.flatMap { line in
            line.split(separator: " ").drop { $0 != "most" }.dropFirst().first.flatMap { Int($0) }
        }
        print("flood: \(admitted.count) clients served, \(busy) answered busy (\(capacityLine.map(String.init) ?? "no capacity logged"))")
        #expect(capacity != nil && capacity! < 128)
        #expect(admitted.count == capacity, "every client up to the cap is served")
        #expect(busy > 0)

        // One over the cap: the busy line, and the connection is closed.
        let extra = try RawSocketClient(path: socketPath)
        let answer = extra.readUntilClosed()
        #expect(answer.closed)
        let line = String(decoding: answer.bytes, as: UTF8.self)
        #expect(line.hasPrefix(#"{"type":"error","code":"busy","message":"#) && line.hasSuffix("\n") && line.filter { $0 == "\n" }.count == 1, "\(line)")

        // The clients served still are, and a launch with a plugin process still finishes.
        let before = Self.cpuTicks(daemon.pid)
        let started = ContinuousClock.now
        #expect(try admitted.last?.request(.ping) == .ok(id: 1))
        let finished = try Self.relaunch(first, after: firstLaunch.launch)
        #expect(finished.phase == .finished)
        #expect(finished.steps.map(\.status) == [.succeeded], "\(finished.steps)")
        #expect(!daemon.log.contains("Too many open files"))
        if let before, let after = Self.cpuTicks(daemon.pid) {
            print("flood: the daemon used \(after - before) CPU ticks (1/\(sysconf(Int32(_SC_CLK_TCK))) s) in \(ContinuousClock.now - started) of a launch with \(admitted.count) idle clients")
        }

        // A client that leaves makes room for another.
        admitted.removeLast().close()
        let newcomer = await Self.connectOnceServed(socketPath)
        #expect(newcomer != nil)
        #expect(try newcomer?.request(.ping) == .ok(id: 1))
        #expect(daemon.isRunning)
    }

    /// Issue 22, item 6: the cap is computed at start, so a limit lowered at run time
    /// (`prlimit`) let idle clients take every descriptor; then each `accept` failed with
    /// EMFILE and, as the first of its read, made NIO retry at once: 11,366 failed `accept4` in
    /// 2 s, a full core (201 of 200 clock ticks). Now accepting pauses (`AcceptPause`).
    @Test func aDescriptorLimitLoweredAtRunTimeDoesNotSpinAndAcceptingResumes() async throws {
        let (directory, daemon, socketPath) = try Self.start(maxClients: nil)
        defer { directory.remove() }
        let first = try daemon.connect()
        _ = try first.follow(timeout: .seconds(30)) { state, _ in state.phase != .finished }
        let lowered = try ProcessRunner.run("/usr/bin/prlimit", ["--pid=\(daemon.pid)", "--nofile=128:128"])
        #expect(lowered.status == 0, "\(lowered.stderr)")

        // More idle clients than descriptors left: the last ones wait in the backlog.
        var clients: [RawSocketClient] = []
        for _ in 0..<200 { clients.append(try RawSocketClient(path: socketPath)) }
        #expect(daemon.waitForLog("cannot accept a client"), "the daemon reached its limit")

        // Two seconds at the limit with clients in the backlog: the daemon waits, it does not spin.
        let before = Self.cpuTicks(daemon.pid)
        let started = ContinuousClock.now
        try await Task.sleep(for: .seconds(2))
        let elapsed = ContinuousClock.now - started
        if let before, let after = Self.cpuTicks(daemon.pid) {
            let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
            let used = Double(after - before) / ticksPerSecond
            print("at its file limit: the daemon used \(used) s of CPU in \(elapsed)")
            // A spin uses the whole interval; waiting, next to nothing.
            #expect(used < Double(elapsed.components.seconds) / 4, "the daemon spun at its descriptor limit")
        } else {
            Issue.record("cannot read the daemon's CPU time")
        }

        // Room made: the clients in the backlog are accepted, and a new one is served.
        for client in clients.prefix(150) { client.close() }
        clients.removeFirst(150)
        let newcomer = await Self.connectOnceServed(socketPath)
        #expect(newcomer != nil)
        #expect(try newcomer?.request(.ping) == .ok(id: 1))
        #expect(try first.request(.ping) == .ok(id: 2))
        #expect(daemon.isRunning)
    }

    @Test func oneClientOverMaxClientsGetsBusyAndIsClosed() async throws {
        let (directory, daemon, socketPath) = try Self.start(maxClients: 3)
        defer { directory.remove() }
        // Three clients (the daemon may still count the probe that found it serving, for a moment).
        var clients: [SplashConnection] = []
        for _ in 0..<3 {
            let client = await Self.connectOnceServed(socketPath)
            #expect(client != nil)
            clients += client.map { [$0] } ?? []
        }
        #expect(clients.count == 3)

        let extra = try RawSocketClient(path: socketPath)
        let answer = extra.readUntilClosed()
        #expect(answer.closed)
        let message = ServerMessage.decode(answer.bytes.dropLast())
        guard case .error(let error)? = message else {
            Issue.record("expected a busy error, got \(String(decoding: answer.bytes, as: UTF8.self))")
            return
        }
        #expect(error.code == .busy)
        #expect(error.message.contains("3 clients"))

        let splashctl = try ProcessRunner.run(Binaries.splashctl, ["--socket", socketPath, "ping"])
        #expect(splashctl.status == 75, "EX_TEMPFAIL: \(splashctl.stderr)")
        #expect(splashctl.stderr.contains("maximum of 3 clients"))

        for client in clients { #expect(try client.request(.ping) == .ok(id: 1)) }
        clients.removeFirst().close()
        let newcomer = await Self.connectOnceServed(socketPath)
        #expect(newcomer != nil)
        #expect(try newcomer?.request(.ping) == .ok(id: 1))
        #expect(daemon.isRunning)
    }
}
