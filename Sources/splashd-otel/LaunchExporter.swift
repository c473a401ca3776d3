import Logging
import Metrics
import OTel
import ServiceLifecycle
import SplashCore
import SplashTelemetry
import Tracing

/// Sends launch traces and their measurements to the collector, one cycle at a time.
///
/// Each cycle makes swift-otel's tracing and metrics backends anew (OTLP over HTTP, protobuf,
/// configured by the standard `OTEL_*` variables), records the launches' spans with their recorded
/// instants and the histograms, then shuts the backends down, which exports everything once. The
/// cycle succeeded when the diagnostic logger saw every span exported and no failure
/// (`ExportDiagnostics`); only then does the caller move its cursor.
struct LaunchExporter {
    /// Attributes of every exported resource, besides `service.name = splashd`. A key also given in
    /// `OTEL_RESOURCE_ATTRIBUTES` is left to the operator's value.
    var resource: [String: String]
    var logger: Logger

    func export(_ traces: [LaunchTrace]) async -> ExportOutcome {
        let diagnostics = ExportDiagnostics()
        var configuration = OTel.Configuration.default
        configuration.serviceName = "splashd"
        configuration.resourceAttributes = resource
        configuration.logs.enabled = false
        configuration.diagnosticLogger = .custom(diagnostics.logger())
        configuration.diagnosticLogLevel = .debug
        // One export, at the end of the cycle: no timer exports meanwhile.
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(3600)
        configuration.traces.batchSpanProcessor.maxExportBatchSize = 4096
        configuration.traces.batchSpanProcessor.maxQueueSize = 16384
        configuration.metrics.exportInterval = .seconds(3600)
        let spanCount = traces.reduce(0) { $0 + $1.spans.count }
        do {
            let tracing = try OTel.makeTracingBackend(configuration: configuration)
            let metrics = try OTel.makeMetricsBackend(configuration: configuration)
            let group = ServiceGroup(
                services: [tracing.service, metrics.service], gracefulShutdownSignals: [], cancellationSignals: [],
                logger: Logger(label: "splashd-otel.services") { _ in SwiftLogNoOpLogHandler() }
            )
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                for trace in traces {
                    Self.record(trace, tracer: tracing.factory)
                    Self.measure(trace, factory: metrics.factory)
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        } catch {
            return .failed("\(error)")
        }
        let tally = diagnostics.tally.withLock { $0 }
        if tally.failures > 0 { return .failed(tally.lastFailure ?? "export failed") }
        if let reply = tally.lastUnreadableReply {
            logger.notice(
                "the collector accepted the launches (2xx) with a reply that could not be read (\(reply)); they count as delivered"
            )
        }
        if tally.metricFailures > 0 { logger.notice("the launches' metrics were not delivered; their traces were") }
        guard tally.exportedSpans >= spanCount else {
            return .failed("the exporter confirmed \(tally.exportedSpans) of \(spanCount) spans")
        }
        return .delivered(spans: spanCount)
    }

    typealias Stamp = DefaultTracerClock.Timestamp

    /// Makes the trace's spans, parents first, each started and ended at its recorded instant.
    static func record<T: Tracer>(_ trace: LaunchTrace, tracer: T) {
        var made: [T.Span] = []
        for span in trace.spans {
            let context = span.parent.map { made[$0].context } ?? .topLevel
            let started = tracer.startSpan(
                span.name, context: context, ofKind: .internal, at: Stamp(nanosecondsSinceEpoch: span.startUnixNanos))
            for (key, value) in span.attributes { started.attributes[key] = attribute(value) }
            for event in span.events {
                var attributes = SpanAttributes()
                for (key, value) in event.attributes { attributes[key] = attribute(value) }
                started.addEvent(SpanEvent(name: event.name, at: Stamp(nanosecondsSinceEpoch: event.unixNanos), attributes: attributes))
            }
            if let message = span.error { started.setStatus(SpanStatus(code: .error, message: message)) }
            made.append(started)
        }
        for (index, span) in trace.spans.enumerated().reversed() {
            made[index].end(at: Stamp(nanosecondsSinceEpoch: span.endUnixNanos))
        }
    }

    /// The launch and step duration histograms and the failure counter.
    static func measure(_ trace: LaunchTrace, factory: some MetricsFactory) {
        let measurements = trace.measurements
        Timer(label: "splashd.launch.duration", factory: factory).recordMilliseconds(measurements.launchMs)
        for step in measurements.stepMs {
            Timer(label: "splashd.step.duration", dimensions: [("splashd.step.id", step.id)], factory: factory)
                .recordMilliseconds(step.ms)
        }
        for failure in measurements.failures {
            Counter(
                label: "splashd.step.failures", dimensions: [("splashd.step.id", failure.step), ("splashd.attempt.code", failure.code)],
                factory: factory
            ).increment()
        }
    }

    static func attribute(_ value: LaunchTrace.Value) -> SpanAttribute {
        switch value {
        case .string(let text): .string(text)
        case .int(let number): .int64(number)
        case .bool(let flag): .bool(flag)
        }
    }
}
