#if canImport(Glibc)
    import Glibc
#endif
import ArgumentParser
import Foundation
import Logging
import SplashClient
import SplashCore
import SplashJournalWriter
import SplashProtocol
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
        let peers = Peers(
            socketPath: socketPath, store: store,
            exporter: LaunchExporter(resource: Self.resource(environment: environment, deviceIDFile: deviceIDFile), logger: logger)
        )
        let (triggers, continuation) = AsyncStream.makeStream(of: ExportTrigger.self, bufferingPolicy: .bufferingNewest(8))
        DaemonWatcher.start(path: socketPath, triggers: continuation, logger: logger)
        let signals = Task {
            for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
                continuation.yield(.stop)
                return
            }
        }
        defer { signals.cancel() }
        _ = SystemdNotifier(environment: environment).notify("READY=1")
        var loop = ExportLoop(peers: peers, cursor: store.load(), clock: ContinuousClock(), logger: logger)
        await loop.run(triggers, retries: continuation)
        _ = SystemdNotifier(environment: environment).notify("STOPPING=1")
    }

    /// splashd's socket, the collector and the cursor's file, for the loop.
    struct Peers: ExportPeers {
        let socketPath: String
        let store: CursorStore
        let exporter: LaunchExporter

        func records() async throws -> (records: [LaunchRecord], version: String) {
            try await SplashdOtel.fetchRecords(socketPath)
        }

        func export(_ traces: [LaunchTrace]) async -> ExportOutcome {
            await exporter.export(traces)
        }

        func save(_ cursor: ExportCursor) {
            store.save(cursor)
        }
    }

    /// The daemon's launch records, oldest first, and its version.
    static func fetchRecords(_ path: String) async throws -> ([LaunchRecord], String) {
        try await Task.detached {
            let connection = try SplashConnection(path: path, timeout: .seconds(5), maxLineBytes: 64 << 20)
            defer { connection.close() }
            guard case .result(_, _, let data, _) = try connection.request(.report(.records), timeout: .seconds(10)),
                case .array(let values) = data
            else { throw ClientError.invalidMessage("no records in the reply") }
            let records = values.compactMap { try? LaunchRecord(jsonValue: $0) }
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
