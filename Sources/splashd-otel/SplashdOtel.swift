#if canImport(Glibc)
    import Glibc
#endif
import ArgumentParser
import Foundation
import Logging
import SplashClient
import SplashCore
import SplashSystemd
import SplashTelemetry
import UnixSignals
import SplashSupport

/// `splashd-otel`: exports every finished launch as an OpenTelemetry trace (docs/operations.md,
/// "Fleet telemetry"). A client of splashd's socket; configured by the standard `OTEL_*`
/// environment variables.
@main
struct SplashdOtel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "splashd-otel",
        abstract: "Export every finished splashd launch as an OpenTelemetry trace over OTLP/HTTP.",
        discussion: """
            Reads the launches' records from splashd's socket, and sends each finished launch once:
            a launch made while the collector cannot be reached is sent when it can be. Configured by
            OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES and
            OTEL_SDK_DISABLED.
            """,
        version: splashdVersion
    )

    @Option(help: "splashd's socket (default: $SPLASHD_SOCKET or /run/splashd/splashd.sock).")
    var socket: String?

    @Option(name: .customLong("state-dir"), help: "Where the export cursor is kept (default: $STATE_DIRECTORY or /var/lib/splashd-otel).")
    var stateDirectory: String?

    @Option(name: .customLong("device-id-file"), help: "The file the stable device id is derived from.")
    var deviceIDFile: String = "/etc/machine-id"

    func run() async throws {
        let environment = ProcessEnvironment.current()
        LogOutput.bootstrap(format: .auto, level: .info, environment: environment)
        let logger = Logger(label: "splashd-otel")
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" {
            logger.notice("OTEL_SDK_DISABLED is true: nothing is exported")
            return
        }
        let socketPath = socket ?? SocketDefaults.path(environment: environment)
        let state = stateDirectory ?? environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init) ?? "/var/lib/splashd-otel"
        mkdir(state, 0o755)
        let store = CursorStore(path: state + "/cursor.json", logger: logger)
        var cursor = store.load()
        let exporter = LaunchExporter(resource: Self.resource(environment: environment, deviceIDFile: deviceIDFile), logger: logger)

        let (triggers, continuation) = AsyncStream.makeStream(of: Trigger.self, bufferingPolicy: .bufferingNewest(8))
        DaemonWatcher.start(path: socketPath, triggers: continuation, logger: logger)
        let signals = Task {
            for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
                continuation.yield(.stop)
                return
            }
        }
        defer { signals.cancel() }
        _ = SystemdNotifier(environment: environment).notify("READY=1")

        var backoff = Self.firstBackoff
        var retry: Task<Void, Never>?
        var lastWarning: ContinuousClock.Instant?
        for await trigger in triggers {
            if trigger == .stop { break }
            let records: [LaunchRecord]
            let version: String
            do {
                (records, version) = try await Self.fetchRecords(socketPath)
            } catch {
                continue  // the watcher triggers again once splashd answers
            }
            let pending = cursor.pending(in: records)
            if pending.isEmpty { continue }
            let traces = pending.compactMap { LaunchTrace(record: $0, version: version) }
            switch await exporter.export(traces) {
            case .delivered(let spans):
                cursor.add(pending.map(\.launch))
                store.save(cursor)
                logger.info("exported \(pending.count) launch(es), \(spans) spans: \(pending.map { String($0.launch.prefix(8)) }.joined(separator: " "))")
                backoff = Self.firstBackoff
                lastWarning = nil
            case .failed(let reason):
                // A collector that is down costs a log line at most once a minute.
                let now = ContinuousClock.now
                if lastWarning.map({ now - $0 >= .seconds(60) }) ?? true {
                    logger.warning("cannot export \(pending.count) launch(es), trying again (for a minute: quietly): \(reason)")
                    lastWarning = now
                }
                retry?.cancel()
                let delay = backoff
                retry = Task {
                    try? await Task.sleep(for: delay)
                    if !Task.isCancelled { continuation.yield(.retry) }
                }
                backoff = min(backoff * 2, Self.lastBackoff)
            }
        }
        retry?.cancel()
        _ = SystemdNotifier(environment: environment).notify("STOPPING=1")
    }

    static let firstBackoff = Duration.seconds(1)
    static let lastBackoff = Duration.seconds(300)

    /// The daemon's launch records, oldest first, and its version.
    static func fetchRecords(_ path: String) async throws -> ([LaunchRecord], String) {
        try await Task.detached {
            let connection = try SplashConnection(path: path, timeout: .seconds(5), maxLineBytes: 64 << 20)
            defer { connection.close() }
            guard case .result(_, _, let data, _) = try connection.request(.report(.records), timeout: .seconds(10)),
                case .array(let values) = data
            else { throw ClientError.invalidMessage("no records in the reply") }
            let records = values.compactMap { value -> LaunchRecord? in
                var writer = JSONWriter()
                writer.value(value)
                return try? LaunchRecord(jsonLine: writer.bytes)
            }
            return (records, connection.serverVersion)
        }.value
    }

    /// `service.version`, `host.name` and a stable `host.id`, unless OTEL_RESOURCE_ATTRIBUTES sets them.
    static func resource(environment: [String: String], deviceIDFile: String) -> [String: String] {
        var attributes: [String: String] = ["service.version": splashdVersion]
        var name = [CChar](repeating: 0, count: 256)
        if gethostname(&name, name.count - 1) == 0 {
            attributes["host.name"] = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if let machineID = AtomicFile.read(deviceIDFile, limit: 4096) {
            attributes["host.id"] = DeviceID.derive(fromMachineID: machineID)
        }
        let operators = Set((environment["OTEL_RESOURCE_ATTRIBUTES"] ?? "").split(separator: ",").compactMap {
            $0.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
        })
        return attributes.filter { !operators.contains($0.key) }
    }
}

/// Why the loop looks at the daemon's records again.
enum Trigger: Sendable, Equatable {
    /// Connected to splashd (at start, and after it restarted).
    case connected
    /// A launch reached `finished`.
    case finished
    /// The backoff after a failed export passed.
    case retry
    case stop
}

/// The cursor's file: read at start, written atomically after each delivered export.
struct CursorStore {
    let path: String
    let logger: Logger

    func load() -> ExportCursor {
        guard let bytes = AtomicFile.read(path, limit: 1 << 20) else { return ExportCursor() }
        do {
            return try ExportCursor(bytes: bytes)
        } catch {
            // Kept aside, not lost; the launches in splashd's history may then be sent again.
            let aside = path + ".unreadable"
            rename(path, aside)
            logger.error("the export cursor \(path) is unreadable (\(error)); moved to \(aside), starting anew")
            return ExportCursor()
        }
    }

    func save(_ cursor: ExportCursor) {
        do {
            try AtomicFile.write(cursor.encoded(), to: path, mode: 0o644)
        } catch {
            logger.error("\(error): these launches may be exported again after a restart")
        }
    }
}

/// Follows splashd's states on a thread of its own (the client is blocking) and turns them into
/// triggers: one when it connects, one per launch that reaches `finished`.
enum DaemonWatcher {
    static func start(path: String, triggers: AsyncStream<Trigger>.Continuation, logger: Logger) {
        let thread = Thread {
            var delay = 0.05
            var logged = false
            while true {
                do {
                    let connection = try SplashConnection(path: path, timeout: .seconds(5))
                    try connection.send(Request(.subscribe))
                    delay = 0.05
                    logged = false
                    triggers.yield(.connected)
                    var finished: String?
                    while true {
                        guard case .state(let state) = try connection.receive(timeout: nil) else { continue }
                        if state.phase == .finished && state.launch != finished {
                            finished = state.launch
                            triggers.yield(.finished)
                        }
                    }
                } catch {
                    if !logged {
                        logger.notice("splashd at \(path) is not answering (\(error)); connecting again")
                        logged = true
                    }
                    Thread.sleep(forTimeInterval: delay)
                    delay = min(delay * 2, 2)
                }
            }
        }
        thread.start()
    }
}
