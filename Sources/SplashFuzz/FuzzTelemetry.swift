import SplashCore
import SplashProtocol
import SplashTelemetry

/// What `splashd-otel` reads: its cursor file, and splashd's `records` reply that it turns into
/// traces (the collector's replies are parsed by swift-otel's internal types; what the exporter
/// decides from them is tested against a hostile receiver, Tests/telemetry).
enum FuzzTelemetry {
    /// A cursor file: what it accepts survives a round trip, and holds at most its capacity.
    static func runCursor(_ bytes: UnsafeRawBufferPointer) {
        guard let cursor = try? ExportCursor(bytes: bytes) else { return }
        FuzzFailure.check(cursor.exported.count <= ExportCursor.capacity, "a cursor over its capacity")
        let again = try? ExportCursor(bytes: cursor.encoded())
        FuzzFailure.check(again == cursor, "a cursor does not survive a round trip")
    }

    /// A reply line to `{"cmd":"records"}`: the records it holds, those the cursor has not sent,
    /// and their traces, whose spans come parents first with one root.
    static func runRecords(_ bytes: UnsafeRawBufferPointer) {
        guard case .result(_, _, let data, _)? = ServerMessage.decode(Array(bytes)), case .array(let values) = data else { return }
        let records = values.compactMap { try? LaunchRecord(jsonValue: $0) }
        var cursor = ExportCursor()
        cursor.add(records.prefix(1).map(\.launch))
        for record in cursor.pending(in: records) {
            FuzzFailure.check(!cursor.contains(record.launch), "a launch already sent is pending")
            guard let trace = LaunchTrace(record: record, version: "fuzz") else { continue }
            FuzzFailure.check(trace.spans.first?.parent == nil, "the first span is not the root")
            for (index, span) in trace.spans.enumerated().dropFirst() {
                FuzzFailure.check(span.parent.map { $0 < index } == true, "span \(index) comes before its parent")
            }
        }
    }
}
