import CLibsystemd
import Logging
import SplashCore
import SplashProtocol
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// RAUC's installer on the system bus (`[update] rauc = true`): its progress drives the update
/// view (`RaucInstaller` says how). Through the sd-bus splashd already loads for `[app]`; reading
/// needs no grant. The watch runs on a thread of its own, blocked in poll(2), and connects again
/// after the bus failed, as the app's watch does.
///
/// Only RAUC speaks for RAUC (design §18): the C watch takes a signal only from the current owner
/// of RAUC's name, and tells every other as refused; those are logged at most a few a minute.
enum RaucWatch {
    /// Watches until the returned function is called, handing each input to `controller`.
    static func start<C: Clock>(controller: LaunchController<C>, logger: Logger) -> @Sendable () -> Void where C.Duration == Duration {
        let state = Mutex(RaucInstaller())
        // RAUC's steps in the journal: an install reports about 20; a flood, 60 a minute.
        let steps = FoldedLog(logger: logger, prefix: "RAUC: ", what: "progress lines", limit: LogLimit(burst: 60))
        let refusals = Mutex(LogLimit())
        let clock = ContinuousClock()
        let origin = clock.now
        return BusWatch.start(
            attempt: { stopFD, message in
                let sink = Unmanaged.passRetained(RaucSink { event in
                    let inputs: [ModeMachine.UpdateInput]
                    switch event.kind {
                    case Int32(SPLASHD_RAUC_EVENT_REFUSED.rawValue):
                        // Not RAUC's: dropped, with a line now and then (a flood of them would
                        // otherwise flood the journal).
                        let (logged, folded) = refusals.withLock { $0.admit(at: origin.duration(to: clock.now)) }
                        guard logged else { return }
                        let more = folded > 0 ? " (and \(folded) more since the last one told)" : ""
                        logger.warning("refused a signal in RAUC's name from \(RaucSink.text(event.sender)), which does not own it\(more)")
                        return
                    case Int32(SPLASHD_RAUC_EVENT_OWNER.rawValue):
                        let owner = RaucSink.text(event.sender)
                        inputs = owner.isEmpty ? state.withLock { $0.lost() } : []
                        if !inputs.isEmpty { logger.warning("RAUC left the bus during an install") }
                    case Int32(SPLASHD_RAUC_EVENT_COMPLETED.rawValue):
                        inputs = state.withLock { $0.completed(event.result) }
                        steps.flush()
                        logger.info("RAUC: Completed(\(event.result))")
                    default:
                        let properties = RaucSink.properties(event)
                        inputs = state.withLock { $0.changed(properties) }
                        // Every step RAUC reports, in the journal (a state may carry only the last
                        // of a quick burst: renderers draw at most one a frame).
                        if let progress = properties.progress, !inputs.isEmpty {
                            steps.log(.info, "\(progress.percentage)% \(progress.message)")
                        }
                    }
                    for input in inputs { controller.updater(input, from: .rauc) }
                })
                defer { sink.release() }
                let result = splashd_bus_watch_rauc(nil, stopFD, { context, event in
                    guard let context, let event else { return }
                    Unmanaged<RaucSink>.fromOpaque(context).takeUnretainedValue().deliver(event.pointee)
                }, sink.toOpaque(), message, 512)
                return (result, sink.takeUnretainedValue().delivered.load(ordering: .relaxed))
            },
            onLost: { reason in logger.warning("RAUC's installer: the bus failed (\(reason)); connecting again") }
        )
    }
}

/// Hands the C watch's events to the installer's reading.
private final class RaucSink: Sendable {
    let onEvent: @Sendable (splashd_rauc_event) -> Void
    let delivered = Atomic<Bool>(false)

    init(_ onEvent: @escaping @Sendable (splashd_rauc_event) -> Void) { self.onEvent = onEvent }

    func deliver(_ event: splashd_rauc_event) {
        delivered.store(true, ordering: .relaxed)
        onEvent(event)
    }

    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func properties(_ event: splashd_rauc_event) -> RaucInstaller.Properties {
        RaucInstaller.Properties(
            operation: event.has_operation != 0 ? text(event.operation) : nil,
            progress: event.has_progress != 0 ? (Int(event.percentage), text(event.message), Int(event.depth)) : nil,
            lastError: event.has_last_error != 0 ? text(event.last_error) : nil
        )
    }
}
